<?php

declare(strict_types=1);

namespace Paygate;

use InvalidArgumentException;
use JsonException;

/** @internal Request bodies: serialised once, so the bytes signed are the bytes sent. */
final class Json
{
    private const FLAGS = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR;

    /**
     * A JSON object of the non-null fields, in the order given. A `DecimalNumber` is written as the
     * JSON number it holds, digit for digit (no float in between); `JsonNull::Value` is a null sent
     * on purpose (a field cleared).
     *
     * @param array<string, mixed> $fields
     */
    public static function object(array $fields): string
    {
        $parts = [];
        foreach ($fields as $name => $value) {
            if ($value === null) {
                continue;
            }
            try {
                $parts[] = json_encode((string) $name, self::FLAGS) . ':'
                    . match (true) {
                        $value instanceof DecimalNumber => $value->literal,
                        $value === JsonNull::Value => 'null',
                        default => json_encode($value, self::FLAGS),
                    };
            } catch (JsonException $e) {
                throw new InvalidArgumentException("Paygate: field {$name} cannot be sent as JSON: {$e->getMessage()}", 0, $e);
            }
        }
        return '{' . implode(',', $parts) . '}';
    }
}
