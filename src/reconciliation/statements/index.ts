/**
 * Bank statements as the upload receives them: the body is written to a temporary file as it
 * arrives (counted against the 50 MiB limit, hashed with SHA-256, checked for UTF-8), the file's
 * encoding and format are recognised from its content, and its entries are read by the format's
 * push reader into a second temporary file of one JSON line each, so memory holds a chunk of the
 * file and a batch of entries whatever the file's size. Only once the whole file has been read,
 * and found to be a statement, does the caller record anything.
 *
 * The temporary files live in a folder named after the process (`paygate-statement-<pid>-…`): the
 * caller removes it when the request ends, whatever happened, and a process that starts removes
 * the folders of processes that no longer run (`removeStaleSpools`).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import iconv from 'iconv-lite';
import { CamtReader } from './camt.js';
import { CsvReader } from './csv.js';
import { CsvProfileReader, type CsvProfile } from './csvProfile.js';
import { Mt940Reader } from './mt940.js';
import { OneCReader } from './onec.js';
import { STATEMENT_MAX_BYTES, statementProblem, type StatementEntry, type StatementReader, type StatementSummaryOfFile } from './types.js';

export * from './types.js';

/** The body of an HTTP request or any other source of bytes (a Node `Readable` is one). */
export type StatementBody = AsyncIterable<Uint8Array | string>;

const SPOOL_PREFIX = 'paygate-statement-';

/** A body kept on disk: where, how big, its digest, and whether its bytes are UTF-8. */
export interface SpooledFile {
  readonly dir: string;
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly utf8: boolean;
}

/** A folder for one upload's temporary files; the caller removes it (`discard`). */
export async function spoolFolder(): Promise<string> {
  return mkdtemp(join(tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
}

export async function discard(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Writes the body to `dir/file` as it arrives. Throws the `too-large` problem past `maxBytes`
 * (stopping at once), and whatever the body throws (a client gone mid-upload); the caller removes
 * the folder in every case. Writes go through a file handle awaited one by one, so nothing is
 * left writing, and no stream left to fail, once this returns or throws.
 */
export async function spoolBody(body: StatementBody, dir: string, maxBytes = STATEMENT_MAX_BYTES): Promise<SpooledFile> {
  const path = join(dir, 'file');
  const hash = createHash('sha256');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let valid = true;
  let bytes = 0;
  const handle = await open(path, 'w');
  try {
    for await (const chunk of body) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      bytes += buf.byteLength;
      if (bytes > maxBytes) throw statementProblem(`the file is larger than ${maxBytes} bytes`, {}, 'too-large');
      hash.update(buf);
      if (valid) {
        try {
          utf8.decode(buf, { stream: true });
        } catch {
          valid = false;
        }
      }
      await handle.write(buf);
    }
    if (valid) {
      try {
        utf8.decode();
      } catch {
        valid = false;
      }
    }
  } finally {
    await handle.close();
  }
  return { dir, path, bytes, sha256: hash.digest('hex'), utf8: valid };
}

/** Removes the spool folders of processes that no longer run (a process killed mid-upload leaves its folder). */
export async function removeStaleSpools(folder = tmpdir()): Promise<number> {
  let removed = 0;
  const spool = new RegExp(`^${SPOOL_PREFIX}(\\d+)-`);
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const m = spool.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || alive(pid)) continue;
    await rm(join(folder, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// ---- encodings and formats

/** How much of the file's start is read to recognise its encoding and format. */
const HEAD_BYTES = 8 * 1024;

async function headOf(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The encoding to read the file in: the byte order mark; else the encoding an XML declaration or a
 * 1C header names (a known one; an unknown name falls back to what the bytes say, never refuses);
 * else the profile's; else UTF-8 when the bytes are UTF-8, otherwise windows-1251 when most letters
 * beyond ASCII are in its Cyrillic range and ISO-8859-1 when not.
 */
export function encodingOf(head: Buffer, utf8: boolean, profileEncoding: string | null = null): string {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  const ascii = head.toString('latin1');
  const declared = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(ascii)?.[1];
  if (declared && iconv.encodingExists(declared)) return declared.toLowerCase();
  if (/^\s*1CClientBankExchange/.test(ascii)) {
    // `Кодировка=Windows` or `Кодировка=DOS`: the key is Cyrillic, so it is looked for in the text as windows-1251 reads it.
    const named = /Кодировка\s*=\s*(\S+)/.exec(iconv.decode(head, 'windows-1251'))?.[1]?.toUpperCase();
    if (named === 'DOS') return 'cp866';
    if (named === 'WINDOWS' && !utf8) return 'windows-1251';
  }
  if (profileEncoding && iconv.encodingExists(profileEncoding)) return profileEncoding.toLowerCase();
  if (utf8) return 'utf-8';
  return looksCyrillic(head) ? 'windows-1251' : 'iso-8859-1';
}

/** Bytes 0xC0–0xFF are Cyrillic letters in windows-1251 and make up nearly every non-ASCII byte of Russian text; Latin-1 text has few of them between ASCII letters. */
function looksCyrillic(head: Buffer): boolean {
  let high = 0;
  let letters = 0;
  for (const b of head) {
    if (b >= 0xc0) high += 1;
    if ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b >= 0xc0) letters += 1;
  }
  return letters > 0 && high / letters > 0.3;
}

export type DetectedFormat = 'camt' | 'mt94x' | '1c' | 'csv' | 'csv-profile';

/** Which reader the file's first text calls for, or null when it is no statement this gateway reads. */
export function formatOf(headText: string, hasProfile: boolean): DetectedFormat | null {
  if (hasProfile) return 'csv-profile';
  const text = headText.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('<')) return 'camt';
  if (text.startsWith('1CClientBankExchange')) return '1c';
  if (/^transactionId,account,amount,currency,receivedAt/.test(text)) return 'csv';
  // SWIFT blocks `{1:…}`, or the fields of an MT940/MT942 message near the start.
  if (text.startsWith('{1:') || /(^|\n)\s*:20:/.test(text.slice(0, 4096)) && /(^|\n)\s*:25:/.test(text)) return 'mt94x';
  return null;
}

function readerOf(format: DetectedFormat, profile: CsvProfile | null): StatementReader {
  switch (format) {
    case 'camt':
      return new CamtReader();
    case 'mt94x':
      return new Mt940Reader();
    case '1c':
      return new OneCReader();
    case 'csv':
      return new CsvReader();
    case 'csv-profile':
      return new CsvProfileReader(profile!);
  }
}

/** The entries read and spooled, with what the file says of itself. */
export interface ReadFile {
  readonly encoding: string;
  readonly summary: StatementSummaryOfFile;
  readonly entries: number;
  /** One JSON line per entry, in file order. */
  readonly entriesPath: string;
}

const DESCRIBE = 'a camt.052, camt.053 or camt.054 document, an MT940 or MT942 statement, a 1C client-bank exchange file, or a CSV with the header transactionId,account,amount,currency,receivedAt,payer,reference (or a CSV profile named by ?profile=)';

/**
 * Reads the spooled file to its end with the reader its content calls for, writing every entry to
 * `dir/entries.ndjson`. Throws `StatementInvalidError` when the file is no statement.
 */
export async function readSpooled(file: SpooledFile, profile: CsvProfile | null): Promise<ReadFile> {
  const head = await headOf(file.path);
  const encoding = encodingOf(head, file.utf8, profile?.encoding ?? null);
  const headText = iconv.decode(head, encoding);
  if (file.bytes === 0 || headText.trim() === '') throw statementProblem(`the file is empty; send ${DESCRIBE}`);
  const format = formatOf(headText, profile !== null);
  if (format === null) throw statementProblem(`the file is in no format this gateway reads; send ${DESCRIBE}`, { line: 1 });
  const reader = readerOf(format, profile);
  const entriesPath = join(file.dir, 'entries.ndjson');
  const out = await open(entriesPath, 'w');
  let entries = 0;
  try {
    const decoder = iconv.getDecoder(encoding);
    const flush = async (list: StatementEntry[]) => {
      if (list.length === 0) return;
      entries += list.length;
      await out.write(list.map((e) => `${JSON.stringify(e)}\n`).join(''));
    };
    for await (const chunk of createReadStream(file.path, { highWaterMark: 64 * 1024 })) {
      const text = decoder.write(chunk as Buffer);
      if (text) reader.write(text);
      await flush(reader.take());
    }
    const rest = decoder.end();
    if (rest) reader.write(rest);
    reader.close();
    await flush(reader.take());
  } finally {
    await out.close();
  }
  return { encoding, summary: reader.summary(), entries, entriesPath };
}

/** The spooled entries back, `size` at a time, in file order. */
export async function* entryBatches(path: string, size: number): AsyncGenerator<StatementEntry[]> {
  let batch: StatementEntry[] = [];
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line === '') continue;
      batch.push(JSON.parse(line) as StatementEntry);
      if (batch.length === size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  } finally {
    lines.close();
  }
}

/** Keeps file content quoted in messages short. */
export { clip } from './fields.js';
export type { CsvProfile } from './csvProfile.js';
