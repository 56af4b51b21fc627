import fs from 'node:fs';
const p = JSON.parse(fs.readFileSync(process.argv[2]));
const byId = new Map(p.nodes.map(n => [n.id, n]));
const parent = new Map(); for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
const self = new Map(); let total = 0;
for (let i = 0; i < p.samples.length; i++) { const d = p.timeDeltas[i] || 0; total += d; self.set(p.samples[i], (self.get(p.samples[i]) || 0) + d); }
// inclusive time per function name (counted once per stack)
const incl = new Map();
for (const [id, t] of self) { const seen = new Set(); let cur = id; while (cur !== undefined) { const cf = byId.get(cur).callFrame; const k = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*node_modules\//, 'nm/').replace(/.*\/work\/main\//, '')}:${cf.lineNumber}`; if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) || 0) + t); } cur = parent.get(cur); } }
[...incl].sort((a, b) => b[1] - a[1]).filter(([k]) => /src\/|fastify|pg\/|pino|ajv|avvio|find-my-way/.test(k)).slice(0, 45).forEach(([k, t]) => console.log((t / total * 100).toFixed(1).padStart(5), k));
