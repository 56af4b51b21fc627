<?php

declare(strict_types=1);

namespace Paygate\Model;

use Paygate\Attribute\Schema;

/** One delivery attempt to a webhook endpoint. */
#[Schema('WebhookAttempt')]
final class WebhookAttempt
{
    /** Attempt id: pass as `before` for the next page. */
    public readonly string $id;
    /** The event id: the delivery's `webhook-id`. */
    public readonly string $eventId;
    /** The event kind. */
    public readonly string $type;
    /** Attempt number within its schedule (a recovery starts a new one). */
    public readonly int $attempt;
    public readonly string $at;
    /** delivered, retry (due again at `nextAttemptAt`), failed, interrupted */
    public readonly string $outcome;
    /** The receiver's HTTP status; null when no answer came. */
    public readonly ?int $statusCode;
    public readonly ?int $durationMs;
    /** Why no answer came (timeout, connection refused, blocked address). */
    public readonly ?string $error;
    public readonly ?string $nextAttemptAt;

    /** @param array<string, mixed> $a */
    private function __construct(array $a)
    {
        $this->id = Read::str($a, 'id');
        $this->eventId = Read::str($a, 'eventId');
        $this->type = Read::str($a, 'type');
        $this->attempt = Read::nint($a, 'attempt') ?? 0;
        $this->at = Read::str($a, 'at');
        $this->outcome = Read::str($a, 'outcome');
        $this->statusCode = Read::nint($a, 'statusCode');
        $this->durationMs = Read::nint($a, 'durationMs');
        $this->error = Read::nstr($a, 'error');
        $this->nextAttemptAt = Read::nstr($a, 'nextAttemptAt');
    }

    /** @param array<string, mixed> $a */
    public static function fromArray(array $a): self
    {
        return new self($a);
    }
}
