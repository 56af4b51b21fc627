<?php

declare(strict_types=1);

namespace Paygate;

use Paygate\Model\CallbackEvent;

/**
 * Verifies the callbacks the gateway sends to an order's callback URL (`X-Gate-Ts`,
 * `X-Gate-Event-Id`, `X-Gate-Sign`). Answer a request that fails with 400 and do not act on it;
 * answer a verified one with exactly 200 (repeats carry the same event id: drop them by it).
 */
final class Callbacks
{
    public const DEFAULT_TOLERANCE_SECONDS = 300;

    /**
     * Checks the signature (hex HMAC-SHA256 with the desk secret over
     * `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}`, compared in constant time, either hex case) and
     * the age of `X-Gate-Ts` (more than `$tolerance` seconds either way is a replay or a wrong
     * clock; the gateway signs every attempt afresh, so a retried callback is never stale), then
     * answers the parsed body.
     *
     * @param string $rawBody the body exactly as received (`file_get_contents('php://input')`): a
     *                        parsed and re-encoded body no longer matches the signature
     * @param array<string, mixed>|object $headers `getallheaders()`, `$_SERVER`, a framework's header
     *                                             array or a PSR-7 request
     * @param int|null $now Unix seconds; for tests
     * @throws PaygateException status 400 with a `CALLBACK_*` code
     */
    public static function verify(string $rawBody, array|object $headers, #[\SensitiveParameter] string $secret, int $tolerance = self::DEFAULT_TOLERANCE_SECONDS, ?int $now = null): CallbackEvent
    {
        if ($secret === '') {
            throw self::fail('CALLBACK_SECRET_MISSING', 'the desk secret is empty; pass the secret of the cash desk the order belongs to.');
        }
        $ts = Headers::get($headers, 'X-Gate-Ts');
        $eventId = Headers::get($headers, 'X-Gate-Event-Id');
        $sign = Headers::get($headers, 'X-Gate-Sign');
        $missing = array_keys(array_filter(['X-Gate-Ts' => $ts, 'X-Gate-Event-Id' => $eventId, 'X-Gate-Sign' => $sign], static fn ($v) => $v === null || $v === ''));
        if ($missing !== []) {
            throw self::fail('CALLBACK_HEADERS_MISSING', 'header ' . implode(', ', $missing) . ' missing; this request was not sent by the gateway (or a proxy dropped the headers).');
        }
        if (preg_match('/^\d{1,12}$/D', (string) $ts) !== 1) {
            throw self::fail('CALLBACK_TIMESTAMP_INVALID', "X-Gate-Ts \"{$ts}\" is not Unix seconds.");
        }
        $expected = Signing::signCallback($secret, (string) $ts, (string) $eventId, $rawBody);
        if (!Signing::signaturesEqual(trim((string) $sign), $expected)) {
            throw self::fail(
                'CALLBACK_SIGNATURE_MISMATCH',
                'signature does not match. Either the secret is wrong (each cash desk has its own; a rotated secret stops working at once; check for stray whitespace) '
                . 'or the body is not the exact bytes received (parsed and re-encoded, re-encoded to another charset, or trimmed).',
            );
        }
        self::checkAge((int) $ts, $tolerance, $now, 'X-Gate-Ts');
        $decoded = json_decode($rawBody, true);
        if (!is_array($decoded)) {
            throw self::fail('CALLBACK_BODY_INVALID', 'the signed body is not a JSON object.');
        }
        return CallbackEvent::fromArray($decoded);
    }

    /**
     * `verify()` for the request PHP is serving now: the body from `php://input`, the headers from
     * `$_SERVER`.
     */
    public static function verifyCurrentRequest(#[\SensitiveParameter] string $secret, int $tolerance = self::DEFAULT_TOLERANCE_SECONDS): CallbackEvent
    {
        return self::verify((string) file_get_contents('php://input'), $_SERVER, $secret, $tolerance);
    }

    /** @internal */
    public static function checkAge(int $ts, int $tolerance, ?int $now, string $header): void
    {
        $age = ($now ?? time()) - $ts;
        if (abs($age) > $tolerance) {
            throw self::fail(
                'CALLBACK_TIMESTAMP_STALE',
                sprintf('%s is %d s %s (tolerance %d s): a replayed request, or this machine\'s clock is off.', $header, abs($age), $age >= 0 ? 'old' : 'in the future', $tolerance),
            );
        }
    }

    /** @internal */
    public static function fail(string $code, string $message): PaygateException
    {
        return new PaygateException(400, $code, $message, message: "{$code}: {$message}");
    }
}
