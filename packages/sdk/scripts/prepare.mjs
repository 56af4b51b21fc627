// `npm ci` in the repository builds dist/ so the `paygate` bin works at once. Where TypeScript is not
// installed (`npm ci --omit=dev` for a gateway deployment) there is nothing to build with, and the
// install must not fail for it.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.log('@paygate/sdk: TypeScript is not installed, dist/ not built (npm run build -w @paygate/sdk builds it)');
  process.exit(0);
}
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
