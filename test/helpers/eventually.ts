/**
 * Waits until `cond` holds, looking again every `everyMs` of real time, and fails naming `what`
 * after `withinMs`. For what a test cannot be told directly (another process, a socket, a worker's
 * loop): the bound is a limit, never a measurement, and no test waits a fixed time for something
 * to have happened.
 */
export async function eventually(what: string, cond: () => boolean | Promise<boolean>, { withinMs = 20_000, everyMs = 10 } = {}): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
