<?php

declare(strict_types=1);

namespace Paygate\Attribute;

use Attribute;

/** A method parameter that goes into the request path, not the body. */
#[Attribute(Attribute::TARGET_PARAMETER)]
final class InPath
{
}
