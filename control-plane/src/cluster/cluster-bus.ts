// How replicas of the control plane tell each other about changes. On PostgreSQL it is
// LISTEN/NOTIFY (postgres-bus.ts); the embedded database serves one process, where the same
// interface delivers in-process.
import { randomUUID } from 'node:crypto';
import type { Tx } from '../db/tx.js';
import type { ClusterMessage, ClusterMessageKind } from './cluster-message.js';

export type Handler<K extends ClusterMessageKind> = (message: Extract<ClusterMessage, { k: K }>) => void | Promise<void>;

export interface ClusterBus {
  /** This process's id among the replicas. */
  readonly replicaId: string;
  /**
   * Tells every other replica. With `tx`, the message leaves when that transaction commits and
   * never if it rolls back; without, at once.
   */
  publish(message: ClusterMessage, tx?: Tx): Promise<void>;
  /**
   * Tells every other replica, then waits until each of `peers` (replica ids) has handled the
   * message, for a bounded time; answers the peers that did not confirm in time: dead, or with
   * their bus reconnecting (they resynchronize once back).
   */
  publishConfirmed(message: ClusterMessage, peers: readonly string[]): Promise<string[]>;
  /** Handles the messages of one kind that other replicas publish. */
  on<K extends ClusterMessageKind>(kind: K, handler: Handler<K>): void;
  /**
   * Runs after the bus lost its connection and found it again: messages may have been missed
   * meanwhile, so whoever keeps state from them reads it afresh.
   */
  onResync(handler: () => void | Promise<void>): void;
  /** Whether this replica hears every message: false from a lost connection until the resynchronization after it is done. */
  listening(): boolean;
  /** Resolves once listening (the first time). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The bus of a single process: there is no other replica to tell. */
export function createLocalBus(): ClusterBus {
  return {
    replicaId: randomUUID(),
    async publish() {},
    async publishConfirmed() {
      return [];
    },
    on() {},
    onResync() {},
    listening: () => true,
    async start() {},
    async stop() {},
  };
}
