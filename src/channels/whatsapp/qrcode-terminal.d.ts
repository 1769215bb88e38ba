/** Types for qrcode-terminal, which ships none. */
declare module 'qrcode-terminal' {
  interface Options {
    small?: boolean;
  }
  export function generate(text: string, opts?: Options, cb?: (art: string) => void): void;
  const qrcode: { generate: typeof generate };
  export default qrcode;
}
