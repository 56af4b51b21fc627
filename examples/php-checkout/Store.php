<?php

declare(strict_types=1);

/**
 * The shop's orders in one JSON file, read and written under an exclusive lock so the checkout
 * and a callback arriving at the same moment never lose each other's change. A real shop keeps
 * them in its database.
 */
final class Store
{
    public function __construct(private readonly string $file)
    {
    }

    /**
     * Runs $change on the orders (keyed by the shop's reference) and saves what it returns.
     *
     * @template T
     * @param callable(array<string, array<string, mixed>>): array{0: array<string, array<string, mixed>>, 1: T} $change
     * @return T
     */
    public function update(callable $change): mixed
    {
        $handle = fopen($this->file, 'c+');
        if ($handle === false) {
            throw new RuntimeException("cannot open {$this->file}");
        }
        try {
            flock($handle, LOCK_EX);
            $text = stream_get_contents($handle);
            $orders = $text === '' || $text === false ? [] : json_decode($text, true, 512, JSON_THROW_ON_ERROR);
            [$orders, $result] = $change($orders);
            ftruncate($handle, 0);
            rewind($handle);
            fwrite($handle, json_encode($orders, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR));
            fflush($handle);
            return $result;
        } finally {
            flock($handle, LOCK_UN);
            fclose($handle);
        }
    }

    /** @return array<string, array<string, mixed>> */
    public function all(): array
    {
        return $this->update(static fn (array $orders) => [$orders, $orders]);
    }
}
