<?php

declare(strict_types=1);

namespace Paygate;

use Closure;
use Paygate\Attribute\InPath;
use Paygate\Attribute\Operation;
use Paygate\Model\Appeal;

/** Appeals on orders closed without credit: `$client->appeals`. */
final class Appeals
{
    /** @param Closure(string, string, array<string, string|null>, ?string, RetryPolicy): array<mixed> $call */
    public function __construct(private readonly Closure $call)
    {
    }

    /**
     * Opens an appeal (one open appeal per order: a repeat answers the existing one).
     *
     * @param string $orderId the `ord_` id or your orderRef
     * @param string|null $evidenceUrl URL(s) the reviewer can open, separated by semicolons
     */
    #[Operation('openAppeal', 'OpenAppealRequest')]
    public function create(string $orderId, ?string $reason = null, ?string $evidenceUrl = null): Appeal
    {
        $body = Json::object(['orderId' => $orderId, 'reason' => $reason, 'evidenceUrl' => $evidenceUrl]);
        return Appeal::fromArray(($this->call)('POST', '/gw/v1/appeals', [], $body, RetryPolicy::Never));
    }

    /** Reads an appeal by its `apl_` id. */
    #[Operation('getAppeal')]
    public function get(#[InPath] string $id): Appeal
    {
        return Appeal::fromArray(($this->call)('GET', '/gw/v1/appeals/' . rawurlencode($id), [], null, RetryPolicy::Network));
    }
}
