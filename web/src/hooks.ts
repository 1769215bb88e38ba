/** Small hooks the views share. */
import { useEffect, useState } from 'preact/hooks';

/** The current time, ticking every `ms` while `active` (a running turn's elapsed time). */
export function useNow(active: boolean, ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [active, ms]);
  return now;
}

/** Whether the layout is the phone one (the conversation list is a drawer). */
export function usePhone(): boolean {
  const query = '(max-width: 767.98px)';
  const [phone, setPhone] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const m = matchMedia(query);
    const on = () => setPhone(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return phone;
}
