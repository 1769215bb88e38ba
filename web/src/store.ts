/** A small observable value and the hook that reads a part of it: the machinery under state.ts. */
import { useLayoutEffect, useReducer, useRef } from 'preact/hooks';

export interface Store<S> {
  get(): S;
  set(patch: Partial<S> | ((s: S) => Partial<S>)): void;
  /** The selected part of the state; the component re-renders when it changes (Object.is). */
  use<T>(select: (s: S) => T): T;
  /** Called after every change (outside the views: what the page tells the gateway). */
  subscribe(l: () => void): () => void;
}

export function createStore<S extends object>(initial: S): Store<S> {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    subscribe(l) {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    set(patch) {
      state = { ...state, ...(typeof patch === 'function' ? patch(state) : patch) };
      for (const l of listeners) l();
    },
    use<T>(select: (s: S) => T): T {
      const [, force] = useReducer((n: number) => n + 1, 0);
      const selectRef = useRef(select);
      selectRef.current = select;
      const value = select(state);
      const last = useRef(value);
      last.current = value;
      useLayoutEffect(() => {
        const l = () => {
          if (!Object.is(selectRef.current(state), last.current)) force(0);
        };
        listeners.add(l);
        return () => void listeners.delete(l);
      }, []);
      return value;
    },
  };
}
