// The part of autocannon's API the benchmark uses (the package ships no types, and @types/autocannon is not a
// dependency of the project).

declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (request: AutocannonRequest, context: unknown) => AutocannonRequest | null;
  }

  export interface AutocannonClient extends EventEmitter {
    setRequests(requests: AutocannonRequest[]): void;
  }

  export interface AutocannonOptions {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    requests?: AutocannonRequest[];
    setupClient?: (client: AutocannonClient) => void;
    excludeErrorStats?: boolean;
  }

  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    latency: { p50: number; p99: number; totalCount: number };
    requests: { total: number; sent: number };
  }

  export interface AutocannonInstance extends EventEmitter {
    stop(): void;
  }

  function autocannon(
    options: AutocannonOptions,
    callback: (err: Error | null, result: AutocannonResult) => void,
  ): AutocannonInstance;

  export default autocannon;
}
