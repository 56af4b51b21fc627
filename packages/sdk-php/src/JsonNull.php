<?php

declare(strict_types=1);

namespace Paygate;

/** @internal A field sent as JSON null on purpose (PHP null means "leave it out"). */
enum JsonNull
{
    case Value;
}
