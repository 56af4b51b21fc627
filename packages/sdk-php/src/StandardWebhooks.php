<?php

declare(strict_types=1);

namespace Paygate;

use Paygate\Model\WebhookMessage;

/**
 * Verifies deliveries to webhook endpoints, which follow the Standard Webhooks specification:
 * `webhook-signature` holds `v1,` + base64 HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`,
 * keyed with the base64-decoded part of the endpoint's `whsec_` secret; during a rotation it holds
 * two signatures separated by a space, and either secret verifies.
 */
final class StandardWebhooks
{
    public const DEFAULT_TOLERANCE_SECONDS = 300;

    /**
     * @param string $rawBody the body exactly as received
     * @param array<string, mixed>|object $headers `getallheaders()`, `$_SERVER`, a framework's header array or a PSR-7 request
     * @param string $secret the endpoint's secret, `whsec_…` (the base64 part alone is accepted too)
     * @param int|null $now Unix seconds; for tests
     * @throws PaygateException status 400 with a `CALLBACK_*` code
     */
    public static function verify(string $rawBody, array|object $headers, #[\SensitiveParameter] string $secret, int $tolerance = self::DEFAULT_TOLERANCE_SECONDS, ?int $now = null): WebhookMessage
    {
        $key = self::key($secret);
        $id = Headers::get($headers, 'webhook-id');
        $ts = Headers::get($headers, 'webhook-timestamp');
        $signatures = Headers::get($headers, 'webhook-signature');
        $missing = array_keys(array_filter(['webhook-id' => $id, 'webhook-timestamp' => $ts, 'webhook-signature' => $signatures], static fn ($v) => $v === null || $v === ''));
        if ($missing !== []) {
            throw Callbacks::fail('CALLBACK_HEADERS_MISSING', 'header ' . implode(', ', $missing) . ' missing; this request is not a webhook delivery (or a proxy dropped the headers).');
        }
        if (preg_match('/^\d{1,12}$/D', (string) $ts) !== 1) {
            throw Callbacks::fail('CALLBACK_TIMESTAMP_INVALID', "webhook-timestamp \"{$ts}\" is not Unix seconds.");
        }
        $expected = self::sign($key, (string) $id, (string) $ts, $rawBody);
        $matched = false;
        foreach (preg_split('/\s+/', trim((string) $signatures)) ?: [] as $candidate) {
            [$version, $signature] = array_pad(explode(',', $candidate, 2), 2, '');
            // Every candidate is compared, so the time taken does not tell which one matched.
            if ($version === 'v1' && hash_equals($expected, $signature)) {
                $matched = true;
            }
        }
        if (!$matched) {
            throw Callbacks::fail(
                'CALLBACK_SIGNATURE_MISMATCH',
                'no v1 signature matches. Either the secret is wrong (each endpoint has its own; after a rotation the old one works for 24 hours) '
                . 'or the body is not the exact bytes received (parsed and re-encoded, or trimmed).',
            );
        }
        Callbacks::checkAge((int) $ts, $tolerance, $now, 'webhook-timestamp');
        $decoded = json_decode($rawBody, true);
        if (!is_array($decoded)) {
            throw Callbacks::fail('CALLBACK_BODY_INVALID', 'the signed body is not a JSON object.');
        }
        return new WebhookMessage(
            (string) $id,
            is_string($decoded['type'] ?? null) ? $decoded['type'] : '',
            is_string($decoded['timestamp'] ?? null) ? $decoded['timestamp'] : '',
            is_array($decoded['data'] ?? null) ? $decoded['data'] : [],
        );
    }

    /** `verify()` for the request PHP is serving now: the body from `php://input`, the headers from `$_SERVER`. */
    public static function verifyCurrentRequest(#[\SensitiveParameter] string $secret, int $tolerance = self::DEFAULT_TOLERANCE_SECONDS): WebhookMessage
    {
        return self::verify((string) file_get_contents('php://input'), $_SERVER, $secret, $tolerance);
    }

    /** The `webhook-signature` value for one secret: `v1,` + base64 HMAC-SHA256. */
    public static function signature(#[\SensitiveParameter] string $secret, string $id, string $timestamp, string $rawBody): string
    {
        return 'v1,' . self::sign(self::key($secret), $id, $timestamp, $rawBody);
    }

    private static function sign(string $key, string $id, string $ts, string $rawBody): string
    {
        return base64_encode(hash_hmac('sha256', $id . '.' . $ts . '.' . $rawBody, $key, true));
    }

    private static function key(string $secret): string
    {
        $secret = trim($secret);
        if ($secret === '') {
            throw Callbacks::fail('CALLBACK_SECRET_MISSING', 'the endpoint secret is empty; pass the whsec_ secret shown when the endpoint was created or rotated.');
        }
        $encoded = str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret;
        $key = base64_decode($encoded, true);
        if ($key === false || $key === '') {
            throw Callbacks::fail('CALLBACK_SECRET_INVALID', 'the endpoint secret is not whsec_ followed by base64; copy it whole from the answer that created or rotated the endpoint.');
        }
        return $key;
    }
}
