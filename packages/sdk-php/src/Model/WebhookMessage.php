<?php

declare(strict_types=1);

namespace Paygate\Model;

/** A verified Standard Webhooks delivery: its `webhook-id` and the parsed body. */
final class WebhookMessage
{
    /**
     * @param string $id the `webhook-id` header: the event id, the same on every attempt (drop repeats by it)
     * @param string $type e.g. `order.completed`
     * @param string $timestamp ISO 8601
     * @param array<string, mixed> $data for order events, the callback's object (see `callbackEvent()`)
     */
    public function __construct(
        public readonly string $id,
        public readonly string $type,
        public readonly string $timestamp,
        public readonly array $data,
    ) {
    }

    /** `data` as a typed callback event (order events). */
    public function callbackEvent(): CallbackEvent
    {
        return CallbackEvent::fromArray($this->data);
    }
}
