<?php

declare(strict_types=1);

namespace Paygate;

/**
 * @internal One header out of whatever a PHP application has: `getallheaders()` (any case),
 * `$_SERVER` (`HTTP_X_GATE_TS`), a framework's array of lists, or a PSR-7 request.
 */
final class Headers
{
    /** @param array<string, mixed>|object $headers */
    public static function get(array|object $headers, string $name): ?string
    {
        if (is_object($headers)) {
            if (method_exists($headers, 'getHeaderLine')) {
                $line = (string) $headers->getHeaderLine($name);
                return $line === '' ? null : $line;
            }
            if ($headers instanceof \Traversable) {
                $headers = iterator_to_array($headers);
            } else {
                return null;
            }
        }
        $server = 'HTTP_' . strtoupper(str_replace('-', '_', $name));
        foreach ($headers as $key => $value) {
            if (!is_string($key) || (strcasecmp($key, $name) !== 0 && $key !== $server)) {
                continue;
            }
            if (is_array($value)) {
                $value = $value[0] ?? null;
            }
            return is_scalar($value) ? (string) $value : null;
        }
        return null;
    }
}
