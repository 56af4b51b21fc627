import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per app instance, so tests and several apps in one process do not share counters. */
export function createMetrics(opts: { defaults?: boolean } = {}) {
  const registry = new Registry();
  // With the defaults come the event loop's delay (nodejs_eventloop_lag_*_seconds), the heap and the
  // garbage collector's pauses.
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  // Figures read from the database when Prometheus scrapes (see `onScrape`). Each gauge sampled this
  // way asks the samplers when it is read; a sampler shares one reading between the gauges of a
  // scrape and keeps it a while (services/backlogGauges.ts).
  const samplers: Array<() => Promise<void>> = [];
  const sampled = async (): Promise<void> => {
    await Promise.all(samplers.map((f) => f()));
  };
  return {
    registry,
    /** Registers what refreshes the sampled gauges; it runs when a scrape reads them, never on a request's path. */
    onScrape(sampler: () => Promise<void>): void {
      samplers.push(sampler);
    },
    httpRequests: new Counter({
      name: 'paygate_http_requests_total',
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    httpLatency: new Histogram({
      name: 'paygate_http_request_duration_seconds',
      help: 'HTTP request latency by route and method',
      labelNames: ['route', 'method'] as const,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 160],
      registers: [registry],
    }),
    ordersCreated: new Counter({ name: 'paygate_orders_created_total', help: 'Orders created', labelNames: ['method', 'rail'] as const, registers: [registry] }),
    orderTransitions: new Counter({ name: 'paygate_order_transitions_total', help: 'Order state changes', labelNames: ['to'] as const, registers: [registry] }),
    ordersExpired: new Counter({ name: 'paygate_orders_expired_total', help: 'Orders expired by the expiry worker', registers: [registry] }),
    turnoverNotifications: new Counter({ name: 'paygate_turnover_notifications_total', help: 'Notify-only turnover caps crossed', labelNames: ['scope', 'window'] as const, registers: [registry] }),
    callbackAttempts: new Counter({ name: 'paygate_callback_attempts_total', help: 'Callback attempts by outcome', labelNames: ['outcome'] as const, registers: [registry] }),
    callbacksFailed: new Counter({ name: 'paygate_callbacks_failed_total', help: 'Callbacks that failed after the last attempt', registers: [registry] }),
    callbackLag: new Gauge({ name: 'paygate_callback_delivery_lag_seconds', help: 'Age of the oldest due callback attempt', registers: [registry] }),
    webhookAttempts: new Counter({ name: 'paygate_webhook_attempts_total', help: 'Webhook endpoint delivery attempts by outcome (delivered, retry, failed)', labelNames: ['outcome'] as const, registers: [registry] }),
    webhookBacklog: new Gauge({ name: 'paygate_webhook_endpoint_backlog', help: 'Deliveries waiting per webhook endpoint (due now or retrying later)', labelNames: ['endpoint'] as const, registers: [registry] }),
    webhookEndpointsDisabled: new Counter({ name: 'paygate_webhook_endpoints_disabled_total', help: 'Webhook endpoints disabled by the sender (410 Gone, or five days of failures)', labelNames: ['reason'] as const, registers: [registry] }),
    appealsOverdue: new Gauge({ name: 'paygate_appeals_overdue', help: 'Open appeals past their SLA', registers: [registry] }),
    breakerTransitions: new Counter({ name: 'paygate_breaker_transitions_total', help: 'Circuit breaker state changes', labelNames: ['provider', 'to'] as const, registers: [registry] }),
    rateRefreshes: new Counter({ name: 'paygate_rate_refreshes_total', help: 'Market rate refreshes by outcome', labelNames: ['outcome'] as const, registers: [registry] }),
    workerErrors: new Counter({ name: 'paygate_worker_errors_total', help: 'Worker loop errors', labelNames: ['worker'] as const, registers: [registry] }),
    statementsOpen: new Gauge({ name: 'paygate_statements_open', help: 'Merchant statements being read now', registers: [registry] }),
    statements: new Counter({ name: 'paygate_statements_total', help: 'Merchant statements by outcome (complete, aborted, failed, busy)', labelNames: ['outcome'] as const, registers: [registry] }),
    statementRows: new Counter({ name: 'paygate_statement_rows_total', help: 'Ledger entries read into merchant statements', registers: [registry] }),
    readReplicaInUse: new Gauge({ name: 'paygate_read_replica_in_use', help: 'Whether statements, exports, reports and dashboards read from the read replica (1) or the primary (0)', registers: [registry] }),
    readReplicaSwitches: new Counter({ name: 'paygate_read_replica_switches_total', help: 'Times those reads moved to the replica or to the primary', labelNames: ['to'] as const, registers: [registry] }),
    readReplicaLag: new Gauge({ name: 'paygate_read_replica_lag_seconds', help: 'The read replica\'s lag at its last measure (-1: not measurable)', registers: [registry] }),
    exportsOpen: new Gauge({ name: 'paygate_exports_open', help: 'CSV exports and reports being written now (statements apart)', registers: [registry] }),
    exports: new Counter({ name: 'paygate_exports_total', help: 'CSV exports and reports by export and outcome (complete, aborted, failed, busy)', labelNames: ['export', 'outcome'] as const, registers: [registry] }),
    exportRows: new Counter({ name: 'paygate_export_rows_total', help: 'Rows read into CSV exports', labelNames: ['export'] as const, registers: [registry] }),
    providerIssueDuration: new Histogram({
      name: 'paygate_provider_issue_duration_seconds',
      help: 'How long a provider of the cascade took to answer an order, by provider and outcome (issued, declined, failed)',
      labelNames: ['provider', 'outcome'] as const,
      // A provider has 10 s (the spec's timeout); sandbox and pool providers answer in microseconds.
      buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    unmatchedCredits: new Gauge({ name: 'paygate_unmatched_credits', help: 'Credits no order has been matched to yet', registers: [registry], collect: sampled }),
    unmatchedCreditOldestAge: new Gauge({
      name: 'paygate_unmatched_credit_oldest_age_seconds',
      help: 'Age of the oldest unmatched credit since it was recorded (0 when there is none)',
      registers: [registry],
      collect: sampled,
    }),
    deviceMessagesUnread: new Gauge({ name: 'paygate_device_messages_unread', help: 'Device messages no template could read, waiting for an operator', registers: [registry], collect: sampled }),
    devicesSilent: new Gauge({
      name: 'paygate_devices_silent',
      help: 'Devices forwarding for at least one requisite and not heard from for DEVICE_SILENCE_MINUTES (their requisites take no new orders)',
      registers: [registry],
      collect: sampled,
    }),
    dbPoolWait: new Histogram({
      name: 'paygate_db_pool_wait_seconds',
      help: 'Time a statement or transaction waited for a connection of the PostgreSQL pool (opening one included)',
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
