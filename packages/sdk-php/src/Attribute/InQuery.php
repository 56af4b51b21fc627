<?php

declare(strict_types=1);

namespace Paygate\Attribute;

use Attribute;

/** A method parameter that goes into the query string (which is not signed), not the body. */
#[Attribute(Attribute::TARGET_PARAMETER)]
final class InQuery
{
}
