/**
 * Where the keyboard goes when the control it was on goes away (Withdraw, Stop): to the message box,
 * never to the page's body. Only when the person is on a keyboard or a mouse: on a touch screen
 * focusing the box would open the on-screen keyboard, so the focus is left alone.
 */
import { set } from './app-store.js';

/** Whether the focus should follow to the message box when `el`, which has it now, goes away. */
export function handsFocusBack(el: Element | null | undefined): boolean {
  if (!el || document.activeElement !== el) return false;
  return el.matches(':focus-visible') || !matchMedia('(pointer: coarse)').matches;
}

/** Moves the focus to the message box (the composer focuses it, the caret at the end). */
export function focusMessageBox(): void {
  set((s) => ({ focusSeq: s.focusSeq + 1 }));
}

/** A message's first words, for the name of a button that acts on it. */
export function firstWords(text: string, n = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
}
