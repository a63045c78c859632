/**
 * Seeded pseudo-random numbers (mulberry32). The whole workspace, the demo keys and
 * every id the sandbox hands out come from here, so `--seed N` gives the same ids on
 * every run, and the runtime generator's state is saved with `--state` so ids stay
 * unique across restarts.
 */
export class Rng {
  state: number;

  constructor(state: number) {
    this.state = state >>> 0;
  }

  static fromSeed(seed: number, stream: string): Rng {
    // Mix the stream name in so the workspace and the runtime ids are independent.
    let h = (Math.imul(seed | 0, 2654435761) ^ 0x9e3779b9) >>> 0;
    for (const ch of stream) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    return new Rng(h);
  }

  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.nextUint32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  /** An RFC 4122 version-4-shaped uuid (version nibble 4, variant 8..b), as strict schemas require. */
  uuid(): string {
    const h = this.hex(32);
    const variant = (8 + (parseInt(h.charAt(16), 16) & 3)).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }

  digits(length: number): string {
    let out = '';
    while (out.length < length) out += String(this.nextUint32() % 10);
    return out;
  }
}
