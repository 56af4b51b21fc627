<?php

declare(strict_types=1);

namespace Paygate;

use Closure;
use DateTimeInterface;
use DateTimeZone;
use Paygate\Attribute\InPath;
use Paygate\Attribute\InQuery;
use Paygate\Attribute\Operation;
use Paygate\Model\WebhookAttemptsPage;
use Paygate\Model\WebhookEndpoint;
use Paygate\Model\WebhookEndpointCreated;
use Paygate\Model\WebhookEndpointList;
use Paygate\Model\WebhookRecovery;
use Paygate\Model\WebhookSecret;
use Paygate\Model\WebhookTestEvent;

/**
 * The merchant's webhook endpoints (Standard Webhooks): `$client->webhookEndpoints`. Every desk
 * of a merchant sees and manages the same endpoints. Deliveries are verified with
 * `StandardWebhooks::verify()`.
 */
final class WebhookEndpoints
{
    /** Pass as `desks` to `update()` to send every desk's events to the endpoint again. */
    public const EVERY_DESK = 'every-desk';

    /** @param Closure(string, string, array<string, string|null>, ?string, RetryPolicy): array<mixed> $call */
    public function __construct(private readonly Closure $call)
    {
    }

    /**
     * Subscribes a URL; the answer carries its secret (`whsec_…`), shown this once.
     *
     * @param list<string> $events event kinds, or `['*']` for every kind
     * @param list<string>|null $desks desk ids, or null for every desk of the merchant
     * @param bool|null $enabled default true
     */
    #[Operation('createWebhookEndpoint', 'CreateWebhookEndpointRequest')]
    public function create(string $url, array $events = ['*'], ?string $description = null, ?array $desks = null, ?bool $enabled = null): WebhookEndpointCreated
    {
        $body = Json::object([
            'url' => $url,
            'events' => array_values($events),
            'description' => $description,
            'desks' => $desks === null ? null : array_values($desks),
            'enabled' => $enabled,
        ]);
        return WebhookEndpointCreated::fromArray(($this->call)('POST', '/gw/v1/webhook-endpoints', [], $body, RetryPolicy::Never));
    }

    /** The merchant's endpoints, oldest first, without secrets (iterable, countable, or `->endpoints`). */
    #[Operation('listWebhookEndpoints')]
    public function list(): WebhookEndpointList
    {
        return WebhookEndpointList::fromArray(($this->call)('GET', '/gw/v1/webhook-endpoints', [], null, RetryPolicy::Network));
    }

    /** One endpoint, without its secret. */
    #[Operation('getWebhookEndpoint')]
    public function get(#[InPath] string $id): WebhookEndpoint
    {
        return WebhookEndpoint::fromArray(($this->call)('GET', '/gw/v1/webhook-endpoints/' . rawurlencode($id), [], null, RetryPolicy::Network));
    }

    /**
     * Changes the fields given; a null argument leaves its field as it is. Enabling an endpoint
     * clears its failing streak; recover the events it missed meanwhile with `recover()`.
     *
     * @param list<string>|null $events
     * @param list<string>|string|null $desks desk ids, or `self::EVERY_DESK`
     * @param string|null $description `''` clears it
     */
    #[Operation('updateWebhookEndpoint', 'UpdateWebhookEndpointRequest')]
    public function update(
        #[InPath] string $id,
        ?string $url = null,
        ?array $events = null,
        ?string $description = null,
        array|string|null $desks = null,
        ?bool $enabled = null,
    ): WebhookEndpoint {
        if (is_string($desks) && $desks !== self::EVERY_DESK) {
            throw new \InvalidArgumentException('Paygate: desks must be a list of desk ids or WebhookEndpoints::EVERY_DESK');
        }
        $body = Json::object([
            'url' => $url,
            'events' => $events === null ? null : array_values($events),
            'description' => $description === '' ? JsonNull::Value : $description,
            'desks' => $desks === self::EVERY_DESK ? JsonNull::Value : (is_array($desks) ? array_values($desks) : null),
            'enabled' => $enabled,
        ]);
        return WebhookEndpoint::fromArray(($this->call)('PATCH', '/gw/v1/webhook-endpoints/' . rawurlencode($id), [], $body, RetryPolicy::Never));
    }

    /** A new secret, shown this once; for 24 hours deliveries carry the old secret's signature beside the new one's. */
    #[Operation('rotateWebhookEndpointSecret')]
    public function rotateSecret(#[InPath] string $id): WebhookSecret
    {
        return WebhookSecret::fromArray(($this->call)('POST', '/gw/v1/webhook-endpoints/' . rawurlencode($id) . '/rotate-secret', [], '{}', RetryPolicy::Never));
    }

    /**
     * Queues again every event since `$since` (at most 30 days ago) that the endpoint did not get.
     *
     * @param DateTimeInterface|string $since a time, or ISO 8601 text
     */
    #[Operation('recoverWebhookEndpoint', 'RecoverWebhookRequest')]
    public function recover(#[InPath] string $id, DateTimeInterface|string $since): WebhookRecovery
    {
        $at = $since instanceof DateTimeInterface
            ? \DateTimeImmutable::createFromInterface($since)->setTimezone(new DateTimeZone('UTC'))->format('Y-m-d\TH:i:s\Z')
            : $since;
        $body = Json::object(['since' => $at]);
        return WebhookRecovery::fromArray(($this->call)('POST', '/gw/v1/webhook-endpoints/' . rawurlencode($id) . '/recover', [], $body, RetryPolicy::Never));
    }

    /** Queues a `webhook.test` event for this endpoint alone. */
    #[Operation('sendWebhookTestEvent')]
    public function sendTest(#[InPath] string $id): WebhookTestEvent
    {
        return WebhookTestEvent::fromArray(($this->call)('POST', '/gw/v1/webhook-endpoints/' . rawurlencode($id) . '/test', [], '{}', RetryPolicy::Never));
    }

    /**
     * A page of the endpoint's delivery attempts, newest first.
     *
     * @param string|null $before an attempt id (`next` of the previous page)
     * @param int|null $limit 1 to 200, default 50
     */
    #[Operation('listWebhookAttempts')]
    public function attempts(#[InPath] string $id, #[InQuery] ?string $before = null, #[InQuery] ?int $limit = null): WebhookAttemptsPage
    {
        $query = ['before' => $before, 'limit' => $limit === null ? null : (string) $limit];
        return WebhookAttemptsPage::fromArray(($this->call)('GET', '/gw/v1/webhook-endpoints/' . rawurlencode($id) . '/attempts', $query, null, RetryPolicy::Network));
    }
}
