<?php

declare(strict_types=1);

namespace Paygate\Model;

/** @internal Reading the fields of a decoded answer. */
final class Read
{
    /** @param array<string, mixed> $a */
    public static function str(array $a, string $k): string
    {
        $v = $a[$k] ?? '';
        return is_scalar($v) ? (string) $v : '';
    }

    /** @param array<string, mixed> $a */
    public static function nstr(array $a, string $k): ?string
    {
        $v = $a[$k] ?? null;
        return is_scalar($v) ? (string) $v : null;
    }

    /** @param array<string, mixed> $a */
    public static function bool(array $a, string $k): bool
    {
        return ($a[$k] ?? false) === true;
    }

    /** @param array<string, mixed> $a */
    public static function nint(array $a, string $k): ?int
    {
        $v = $a[$k] ?? null;
        return is_int($v) ? $v : (is_numeric($v) ? (int) $v : null);
    }

    /**
     * @param array<string, mixed> $a
     * @return array<string, mixed>
     */
    public static function obj(array $a, string $k): array
    {
        $v = $a[$k] ?? null;
        return is_array($v) ? $v : [];
    }

    /**
     * @param array<string, mixed> $a
     * @return list<array<string, mixed>>
     */
    public static function objs(array $a, string $k): array
    {
        $v = $a[$k] ?? null;
        return is_array($v) ? array_values(array_filter($v, 'is_array')) : [];
    }

    /**
     * @param array<string, mixed> $a
     * @return list<string>|null
     */
    public static function nstrs(array $a, string $k): ?array
    {
        $v = $a[$k] ?? null;
        return is_array($v) ? array_values(array_map('strval', array_filter($v, 'is_scalar'))) : null;
    }
}
