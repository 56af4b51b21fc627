<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** A rail a provider offers now, with the currencies the desk allows on it. */
#[Schema('MethodRail')]
final class MethodRail
{
    /** Null for methods without rails. */
    public readonly ?string $rail;
    /** @var list<CurrencyWindow> */
    public readonly array $currencies;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->rail = Read::nstr($a, 'rail');
        $this->currencies = array_map([CurrencyWindow::class, 'fromArray'], Read::objs($a, 'currencies'));
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
