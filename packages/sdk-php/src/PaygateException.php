<?php

declare(strict_types=1);

namespace Paygate;

use RuntimeException;
use Throwable;

/**
 * Every failure the SDK reports: an error answer of the gateway (`status`, `code`, `detail` and
 * `traceId` from the error envelope), a `429` (`code` `RATE_LIMITED`, `retryAfter` in seconds), an
 * answer that is not the gateway's JSON (`code` `HTTP_<status>`, the start of the page as `detail`),
 * a network failure (`status` 0, `code` `NETWORK_ERROR`) or a callback or webhook that fails
 * verification (`status` 400, a `CALLBACK_*` code).
 *
 * Like PDOException, `code` (and so `getCode()`) is a string: the gateway's `fault.code`.
 */
final class PaygateException extends RuntimeException
{
    /** The gateway's `fault.code` (e.g. `ORDER_NOT_FOUND`), or one of the SDK's own codes. */
    public $code;

    /**
     * @param int $status HTTP status of the answer; 0 when no answer arrived
     * @param string $code the gateway's `fault.code` or one of the SDK's own codes
     * @param string|null $detail the gateway's `fault.detail`: names the field, the bound or the limit
     * @param string|null $traceId quote it to support; from the envelope or the `X-Trace-Id` header
     * @param int|null $retryAfter for `429`: seconds to wait, from `Retry-After`
     */
    public function __construct(
        public readonly int $status,
        string $code,
        public readonly ?string $detail = null,
        public readonly ?string $traceId = null,
        public readonly ?int $retryAfter = null,
        ?string $message = null,
        ?Throwable $previous = null,
    ) {
        parent::__construct($message ?? self::describe($status, $code, $detail, $traceId), 0, $previous);
        $this->code = $code;
    }

    /** The same as `code`, typed. */
    public function errorCode(): string
    {
        return $this->code;
    }

    private static function describe(int $status, string $code, ?string $detail, ?string $traceId): string
    {
        return $code
            . ($status !== 0 ? " (HTTP {$status})" : '')
            . ($detail !== null && $detail !== '' ? ": {$detail}" : '')
            . ($traceId !== null && $traceId !== '' ? " [trace {$traceId}]" : '');
    }
}
