<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** An event of the feed, with the state of its callback; `body` is the exact callback body. */
#[Schema('Event')]
final class Event
{
    /** `evt_` id, the `X-Gate-Event-Id` of its callbacks. */
    public readonly string $id;
    public readonly string $event;
    public readonly string $orderId;
    public readonly string $createdAt;
    public readonly string $body;
    public readonly EventDelivery $delivery;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->id = Read::str($a, 'id');
        $this->event = Read::str($a, 'event');
        $this->orderId = Read::str($a, 'orderId');
        $this->createdAt = Read::str($a, 'createdAt');
        $this->body = Read::str($a, 'body');
        $this->delivery = EventDelivery::fromArray(Read::obj($a, 'delivery'));
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }

    /** The body as a typed callback event. */
    public function callbackEvent(): CallbackEvent
    {
        $decoded = json_decode($this->body, true);
        return CallbackEvent::fromArray(is_array($decoded) ? $decoded : []);
    }
}
