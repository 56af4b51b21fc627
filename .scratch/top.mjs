import fs from 'node:fs';
const f = process.argv[2];
const p = JSON.parse(fs.readFileSync(f));
const byId = new Map(p.nodes.map(n => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; let total = 0;
for (let i = 0; i < p.samples.length; i++) { const n = byId.get(p.samples[i]); const d = dt[i] || 0; total += d; self.set(n.id, (self.get(n.id) || 0) + d); }
const byFn = new Map(), byFile = new Map();
for (const [id, t] of self) { const n = byId.get(id); const cf = n.callFrame; const k = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*node_modules\//, 'nm/').replace(/.*\/work\/main\//, '')}:${cf.lineNumber}`; byFn.set(k, (byFn.get(k) || 0) + t);
  let file = cf.url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, 'nm:$1').replace(/.*\/work\/main\//, ''); if (!file) file = cf.functionName; byFile.set(file, (byFile.get(file) || 0) + t); }
const show = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).forEach(([k, t]) => console.log((t / total * 100).toFixed(1).padStart(5), k));
console.log('total ms', (total / 1000).toFixed(0)); console.log('--- by file'); show(byFile, 25); console.log('--- by fn'); show(byFn, 30);
