<?php

declare(strict_types=1);

namespace Paygate\Http;

use RuntimeException;

/** No answer: connection refused or dropped, timeout, DNS failure. The client reports it as `NETWORK_ERROR`. */
final class NetworkException extends RuntimeException
{
}
