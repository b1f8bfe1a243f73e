import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * A raw event-stream reader over fetch, for what the SDK clients hide: heartbeats, event ids,
 * the endpoint event. `next(pred)` waits for the next event matching `pred`.
 */
export async function openEventStream(
  url: string,
  headers: Record<string, string> = {},
  post?: unknown,
): Promise<{ status: number; headers: Headers; body: string; next(pred?: (e: SseEvent) => boolean): Promise<SseEvent>; close(): void }> {
  const abort = new AbortController();
  const init: RequestInit = post === undefined ? {} : { method: 'POST', body: JSON.stringify(post) };
  const accept = post === undefined ? 'text/event-stream' : 'application/json, text/event-stream';
  const res = await fetch(url, { ...init, headers: { accept, 'content-type': 'application/json', ...headers }, signal: abort.signal });
  if (res.status !== 200) {
    return { status: res.status, headers: res.headers, body: await res.text(), next: () => Promise.reject(new Error('no stream')), close: () => {} };
  }
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  let ended = false;
  void (async () => {
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += Buffer.from(chunk).toString('utf8');
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const e: SseEvent = { event: 'message', data: '' };
          for (const line of block.split('\n')) {
            const [field, ...rest] = line.split(':');
            const value = rest.join(':').replace(/^ /, '');
            if (field === 'event') e.event = value;
            else if (field === 'data') e.data += value;
            else if (field === 'id') e.id = value;
          }
          if (block.split('\n').some((l) => l.startsWith('data') || l.startsWith('id'))) events.push(e);
        }
        waiters.splice(0).forEach((w) => w());
      }
    } catch {
      // aborted
    }
    ended = true;
    waiters.splice(0).forEach((w) => w());
  })();
  return {
    status: 200,
    headers: res.headers,
    body: '',
    async next(pred = () => true) {
      for (;;) {
        const i = events.findIndex(pred);
        if (i >= 0) return events.splice(i, 1)[0]!;
        if (ended) throw new Error('event stream ended');
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    close: () => abort.abort(),
  };
}

/**
 * A TCP proxy in front of a server whose connections the test can cut, as a network would:
 * clients reconnect through it to the same server.
 */
export async function startDropProxy(target: string, port = 0): Promise<{ url: string; drop(): void; close(): Promise<void> }> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(to.port), to.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    drop: () => sockets.forEach((s) => s.destroy()),
    close: async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
