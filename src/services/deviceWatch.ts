/**
 * The silence watch of device messages: devices not heard from (heartbeat or message) for
 * `DEVICE_SILENCE_MINUTES` are marked silent, one audit entry each naming the requisites that take
 * no new order until it is heard from again (the return is audited where it is heard:
 * src/reconciliation/messages.ts). Issuing an order reads the sightings itself, so no order waits
 * for this pass; the mark is for the record, the pages and alerts.
 */
import type { Ctx } from '../context.js';
import { isoSeconds } from '../domain/time.js';
import { insertAuditEntries } from '../store/audit.js';
import { markDevicesSilent, openSilences, silentDevices } from '../store/devices.js';

export async function watchDevices(ctx: Ctx): Promise<number> {
  const nowMs = ctx.clock.now();
  const since = new Date(nowMs - ctx.config.deviceSilenceMinutes * 60_000);
  return ctx.db.tx(async (q) => {
    const silent = (await silentDevices(q, since)).filter((d) => d.state === 'active');
    const marked = new Set(await markDevicesSilent(q, silent.map((d) => d.id), since, new Date(nowMs)));
    const entries = silent.filter((d) => marked.has(d.id)).map((d) => ({
      at: new Date(nowMs), actor: 'device-watch', action: 'device.silent', objectId: d.id, outcome: 'ok',
      detail: `not heard from since ${isoSeconds(d.last_seen_at ?? d.created_at)}; requisites paused for new orders: ${d.requisite_ids.join(', ') || 'none'}`,
    }));
    await insertAuditEntries(q, entries);
    // The silence began when the last sighting grew older than the silence, not when this pass came by.
    const silenceMs = ctx.config.deviceSilenceMinutes * 60_000;
    await openSilences(q, silent.filter((d) => marked.has(d.id)).map((d) => ({ id: d.id, providerId: d.provider_id, startedAt: new Date((d.last_seen_at ?? d.created_at).getTime() + silenceMs) })));
    if (entries.length) ctx.log.warn({ devices: entries.map((e) => e.objectId) }, 'devices silent: their requisites take no new orders');
    return entries.length;
  });
}
