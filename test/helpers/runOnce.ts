import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Something made once per `vitest run` and shared by its test processes: the directory `name` under
 * the run's directory (`runDir`, from global setup). The first process to ask makes it (`make`
 * fills the directory); the others wait until it is done, and fail with its error if it failed.
 */
export async function oncePerRun(runDir: string, name: string, make: (dir: string) => Promise<void>, waitMs = 120_000): Promise<string> {
  const dir = join(runDir, name);
  const done = `${dir}.done`;
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another test process is making it.
    const deadline = Date.now() + waitMs;
    for (;;) {
      let text: string | null = null;
      try {
        text = readFileSync(done, 'utf8');
      } catch {
        if (Date.now() > deadline) throw new Error(`${dir} was not made within ${waitMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const { error } = JSON.parse(text) as { error?: string };
      if (error) throw new Error(`making ${dir} failed in another test process: ${error}`);
      return dir;
    }
  }
  const finish = (outcome: { error?: string }) => {
    writeFileSync(`${done}.tmp`, JSON.stringify(outcome));
    renameSync(`${done}.tmp`, done);
  };
  try {
    await make(dir);
  } catch (err) {
    finish({ error: err instanceof Error ? err.stack ?? err.message : String(err) });
    throw err;
  }
  finish({});
  return dir;
}
