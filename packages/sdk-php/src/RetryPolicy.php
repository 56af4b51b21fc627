<?php

declare(strict_types=1);

namespace Paygate;

/** @internal Which failures a call may be repeated after. */
enum RetryPolicy
{
    /** Changes something and carries no idempotency key: sent once. */
    case Never;
    /** Safe to repeat: after a network failure. */
    case Network;
    /** Order creation with an `orderRef`: after a network failure and after `503`. */
    case NetworkAnd503;
}
