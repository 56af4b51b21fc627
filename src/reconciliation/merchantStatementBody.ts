/**
 * `GET /admin/v1/merchants/{id}/statement` as one JSON document written as it is read: the
 * envelope and the statement's fields exactly as the route's schema serialises them (the same
 * names in the same order), the entries a batch at a time. A client reads it like any other answer;
 * one that breaks after the first byte is cut short (no closing `]}`, no chunked encoding's last
 * chunk) and fails to parse, so it cannot pass for a whole statement.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpenStatement } from '../services/merchantStatements.js';
import { pulledBody } from '../server/pulledBody.js';

const jsonText = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));

export async function* statementJsonChunks(s: OpenStatement, traceId: string): AsyncGenerator<string> {
  const { merchantId, from, to, currency, openingBalance, closingBalance } = s.head;
  const head = JSON.stringify({ merchantId, from, to, currency, openingBalance, closingBalance });
  yield `{"status":"ok","result":${head.slice(0, -1)},"entries":[`;
  let first = true;
  for await (const batch of s.entries) {
    let chunk = '';
    // The route's field order; the time, the type and the amounts are the service's own plain
    // text (no character JSON escapes), the ids are written as JSON strings.
    for (const e of batch) {
      chunk += `${first ? '' : ','}{"at":"${e.at}","type":"${e.type}","orderId":${jsonText(e.orderId)},"withdrawalId":${jsonText(e.withdrawalId)},"amountUsd":"${e.amountUsd}","balanceUsd":"${e.balanceUsd}"}`;
      first = false;
    }
    yield chunk;
  }
  yield `]},"traceId":${JSON.stringify(traceId)}}`;
}

/** Sends the open statement as the route's `200` (nothing but headers for `HEAD`). */
export function sendStatementJson(req: FastifyRequest, reply: FastifyReply, s: OpenStatement): FastifyReply {
  reply.code(200).header('Content-Type', 'application/json; charset=utf-8').header('Cache-Control', 'no-store');
  if (req.method === 'HEAD') {
    void s.close();
    return reply.send();
  }
  return reply.send(pulledBody(statementJsonChunks(s, req.id), s.close, s.ended));
}
