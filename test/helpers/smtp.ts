import { createServer, connect, type Server, type Socket } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './ports.js';

/*
 * A real mail server for the tests (smtp-server on a loopback port), holding what arrived, parsed
 * as a mail client reads it (mailparser); and the two ways a mail server goes wrong that a test
 * needs to stage: one that does not answer at all, and one that refuses a recipient.
 */

export interface ArrivedMail {
  /** The envelope: who the server was told the mail is from and to. */
  envelopeFrom: string;
  envelopeTo: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  language: string | null;
  /** The user the sender logged in as, if it did. */
  user: string | null;
}

export interface TestMailServerOptions {
  /** Logins the server takes (AUTH PLAIN/LOGIN over plain text, as a local relay would); none: no login at all. */
  login?: { user: string; pass: string };
  /** A reply to a recipient: `{code, message}` refuses it (550: for good, 450: for now). */
  rcpt?: (address: string) => { code: number; message: string } | null;
}

export class TestMailServer {
  readonly arrived: ArrivedMail[] = [];
  private server: SMTPServer | null = null;
  port = 0;
  rcpt: TestMailServerOptions['rcpt'];

  constructor(private readonly o: TestMailServerOptions = {}) {
    this.rcpt = o.rcpt;
  }

  /** Listens on `port` (a free one when 0) of 127.0.0.1; returns the port. */
  async start(port = 0): Promise<number> {
    const login = this.o.login;
    this.server = new SMTPServer({
      logger: false,
      // The sender would take STARTTLS when offered; a test server has no certificate a client trusts.
      disabledCommands: login ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !login,
      allowInsecureAuth: true,
      onAuth: (auth, _session, cb) =>
        login && auth.username === login.user && auth.password === login.pass ? cb(null, { user: auth.username }) : cb(Object.assign(new Error('Authentication failed'), { responseCode: 535 })),
      onRcptTo: (address, _session, cb) => {
        const refuse = this.rcpt?.(address.address);
        cb(refuse ? Object.assign(new Error(refuse.message), { responseCode: refuse.code }) : null);
      },
      onData: (stream, session, cb) => {
        simpleParser(stream)
          .then((m) => {
            this.arrived.push({
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              from: m.from?.text ?? '',
              to: Array.isArray(m.to) ? m.to.map((t) => t.text).join(', ') : (m.to?.text ?? ''),
              subject: m.subject ?? '',
              text: m.text ?? '',
              html: typeof m.html === 'string' ? m.html : '',
              messageId: m.messageId ?? '',
              language: (m.headers.get('content-language') as string | undefined) ?? null,
              user: typeof session.user === 'string' ? session.user : null,
            });
            cb();
          })
          .catch(cb);
      },
    });
    this.port = port || (await freePort());
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', () => resolve());
    });
    return this.port;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** The mails that arrived for one address. */
  to(address: string): ArrivedMail[] {
    return this.arrived.filter((m) => m.envelopeTo.includes(address));
  }
}

/**
 * A mail server that takes connections and then says nothing (no greeting): the sender must give
 * up on it within its timeouts. Once `wake()` is called, connections are passed through to
 * `target`, as a server back on its feet would answer.
 */
export class SilentServer {
  private server: Server | null = null;
  private readonly held = new Set<Socket>();
  private awake = false;
  port = 0;
  connections = 0;

  constructor(private readonly target: () => number) {}

  async start(): Promise<number> {
    this.server = createServer((socket) => {
      this.connections++;
      if (!this.awake) {
        this.held.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => this.held.delete(socket));
        return;
      }
      const upstream = connect(this.target(), '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    this.port = await freePort();
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', () => resolve()));
    return this.port;
  }

  wake(): void {
    this.awake = true;
  }

  async stop(): Promise<void> {
    for (const s of this.held) s.destroy();
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
