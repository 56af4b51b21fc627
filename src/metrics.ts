import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per app instance, so tests and several apps in one process do not share counters. */
export function createMetrics(opts: { defaults?: boolean } = {}) {
  const registry = new Registry();
  if (opts.defaults) collectDefaultMetrics({ register: registry });
  return {
    registry,
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
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
