<?php

declare(strict_types=1);

namespace Paygate;

/** The gateway's signatures: requests to `/gw/v1` and the callbacks it sends. */
final class Signing
{
    /** Lowercase hex SHA-256 of the exact body bytes (of empty input for a request without body). */
    public static function sha256Hex(string $body): string
    {
        return hash('sha256', $body);
    }

    /** `{ts}.{nonce}.{METHOD}.{path}.{sha256hex(body)}`; `path` without host and query string. */
    public static function requestSigningString(string $ts, string $nonce, string $method, string $path, string $body): string
    {
        $bare = explode('?', $path, 2)[0];
        return $ts . '.' . $nonce . '.' . strtoupper($method) . '.' . $bare . '.' . self::sha256Hex($body);
    }

    /** `X-Gate-Sign` of a `/gw/v1` request: hex HMAC-SHA256, key = the desk secret as UTF-8 bytes. */
    public static function signRequest(string $secret, string $ts, string $nonce, string $method, string $path, string $body): string
    {
        return hash_hmac('sha256', self::requestSigningString($ts, $nonce, $method, $path, $body), $secret);
    }

    /** `X-Gate-Sign` of a callback: hex HMAC-SHA256 over `{X-Gate-Ts}.{X-Gate-Event-Id}.{raw body}`. */
    public static function signCallback(string $secret, string $ts, string $eventId, string $rawBody): string
    {
        return hash_hmac('sha256', $ts . '.' . $eventId . '.' . $rawBody, $secret);
    }

    /** 24 random bytes as hex: 48 characters, inside the gateway's 8 to 128 window. */
    public static function newNonce(): string
    {
        return bin2hex(random_bytes(24));
    }

    /** Constant-time comparison of a hex signature (either case) with the expected one. */
    public static function signaturesEqual(string $given, string $expectedHex): bool
    {
        if (preg_match('/^[0-9a-fA-F]{64}$/D', $given) !== 1 || preg_match('/^[0-9a-fA-F]{64}$/D', $expectedHex) !== 1) {
            return false;
        }
        return hash_equals(strtolower($expectedHex), strtolower($given));
    }
}
