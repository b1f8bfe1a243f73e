import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A free loopback port (bound and released; good enough for a test's own server). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A throwaway redis-server on its own port, without persistence, which a fault test may kill,
 * restart empty or freeze (SIGSTOP) without touching the machine's shared Redis.
 */
export class ThrowawayRedis {
  private proc: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts a fresh, empty server on the same port. */
  async restart(): Promise<void> {
    if (this.proc) throw new Error('redis-server is running');
    const proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; i < 100 && !/Ready to accept connections/.test(out); i++) await sleep(100);
    if (!/Ready to accept connections/.test(out)) throw new Error(`redis-server did not start:\n${out}`);
  }

  /** Kills the server outright: every job and key it held is gone. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = undefined;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }

  /** Freezes the process: connections stay open and nothing answers. */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }
}

/**
 * A TCP proxy to a real server (the shared Postgres), which the test can stall (connections
 * stay open, no byte moves) or cut (every connection reset, new ones refused), and heal.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private mode: 'open' | 'stalled' | 'cut' = 'open';

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const holder: { proxy?: TcpProxy } = {};
    const server = createServer((client) => {
      if (holder.proxy) holder.proxy.accept(client, target);
      else client.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.proxy = new TcpProxy(server, (server.address() as AddressInfo).port);
    return holder.proxy;
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    if (this.mode === 'cut') return void client.destroy();
    const upstream = connect(target.port, target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      from.on('data', (d: Buffer) => to.write(d));
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
      from.on('error', () => to.destroy());
      if (this.mode === 'stalled') from.pause();
    }
  }

  /** No byte moves in either direction until heal(); connections stay open. */
  stall(): void {
    this.mode = 'stalled';
    for (const s of this.sockets) s.pause();
  }

  /** Resets every connection and refuses new ones until heal(). */
  cut(): void {
    this.mode = 'cut';
    for (const s of this.sockets) s.destroy();
  }

  heal(): void {
    this.mode = 'open';
    for (const s of this.sockets) s.resume();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
