// A TCP relay to PostgreSQL that a test can cut and restore: a database that goes away and comes back.

import net from 'node:net';

export class Relay {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target = { host: '127.0.0.1', port: 5432 }) {}

  async open(port = 0): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Drops every open connection and stops accepting new ones. */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server?.listening) await new Promise((resolve) => this.server!.close(resolve));
  }

  /** `url` with its host and port replaced by the relay's. */
  via(url: string): string {
    const relayed = new URL(url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(this.port);
    return relayed.toString();
  }
}
