// One WebSocket per tab to the feed. Messages are applied to the cached data in batches (at
// most every 100 ms) and handed to subscribers; the socket reconnects with backoff and the
// page says when it is disconnected. After a reconnect everything is refetched, since
// messages sent while away are gone.
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { LiveMessage } from '../api/types';
import { tokenStore } from '../session/token-store';
import { useSession } from '../session/session';
import { applyLiveMessages } from './cache-updates';

export type LiveState = 'connecting' | 'live' | 'disconnected';
type Subscriber = (messages: LiveMessage[]) => void;

interface Live {
  state: LiveState;
  subscribe(subscriber: Subscriber): () => void;
}

const LiveContext = createContext<Live>({ state: 'disconnected', subscribe: () => () => undefined });
const FLUSH_MS = 100;
const MAX_BACKOFF_MS = 10_000;

export function LiveProvider({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const client = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  const subscribers = useRef(new Set<Subscriber>());
  const token = session?.token;
  const org = session?.organizationId ?? '';

  useEffect(() => {
    if (!token) return;
    let socket: WebSocket | undefined;
    let attempts = 0;
    let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    let pending: LiveMessage[] = [];
    let stopped = false;

    const flush = () => {
      flushTimer = undefined;
      const batch = pending;
      pending = [];
      applyLiveMessages(client, org, batch);
      for (const subscriber of subscribers.current) subscriber(batch);
    };

    const connect = () => {
      setState(attempts === 0 ? 'connecting' : 'disconnected');
      const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
      socket = new WebSocket(`${scheme}://${location.host}/api/v1/ws?token=${encodeURIComponent(token)}`);
      socket.onopen = () => {
        if (attempts > 0) void client.invalidateQueries({ queryKey: [org] });
        attempts = 0;
        setState('live');
      };
      socket.onmessage = (event) => {
        try {
          pending.push(JSON.parse(String(event.data)) as LiveMessage);
        } catch {
          return;
        }
        flushTimer ??= setTimeout(flush, FLUSH_MS);
      };
      socket.onclose = (event) => {
        if (stopped) return;
        if (event.code === 4401) return tokenStore.expire('Your session has expired. Sign in again.');
        if (event.code === 4403) return tokenStore.expire(event.reason ? `Access ended: ${event.reason}.` : 'Your access to this organization has ended.');
        setState('disconnected');
        const backoff = Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempts) * (0.75 + Math.random() * 0.5);
        attempts += 1;
        reconnectTimer = setTimeout(connect, backoff);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(reconnectTimer);
      clearTimeout(flushTimer);
      socket?.close(1000);
    };
  }, [token, org, client]);

  const live = useRef<Live>({
    state,
    subscribe(subscriber) {
      subscribers.current.add(subscriber);
      return () => subscribers.current.delete(subscriber);
    },
  });
  return <LiveContext.Provider value={{ ...live.current, state }}>{children}</LiveContext.Provider>;
}

export function useLiveState(): LiveState {
  return useContext(LiveContext).state;
}

/** Calls `handler` with each batch of feed messages while the component is mounted. */
export function useLiveMessages(handler: Subscriber): void {
  const { subscribe } = useContext(LiveContext);
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => subscribe((messages) => latest.current(messages)), [subscribe]);
}
