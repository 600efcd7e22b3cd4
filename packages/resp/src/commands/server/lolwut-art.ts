/**
 * The pictures of LOLWUT VERSION 5 and 6, drawn as Redis 7.0's lolwut5.c
 * and lolwut6.c draw them (same canvas sizes, same geometry, C's float
 * and rounding rules kept), so a picture without randomness (VERSION 5
 * with at most two rows of squares) is byte for byte Redis's. Where Redis
 * calls rand(), `rand` is called instead: the random parts differ, as
 * they differ between two Redis runs.
 */

/** C's rand(): a non-negative integer (RAND_MAX = 2^31 - 1, as glibc). */
export type Rand = () => number;
const RAND_MAX = 2147483647;
export const mathRand: Rand = () => Math.floor(Math.random() * (RAND_MAX + 1));

const f32 = Math.fround;
/** C's round(): halves away from zero. */
const cround = (v: number): number => Math.sign(v) * Math.round(Math.abs(v));

/** A grid of pixel colors (0, 1 for Schotter's dots; 0..3 grays for the skyline). */
class Canvas {
  readonly pixels: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
    background: number,
  ) {
    this.pixels = new Uint8Array(width * height).fill(background);
  }

  /** Out of the canvas: ignored (lwDrawPixel). */
  set(x: number, y: number, color: number): void {
    if (x < 0 || x >= this.width || y < 0 || y >= this.height) return;
    this.pixels[x + y * this.width] = color;
  }

  get(x: number, y: number): number {
    if (x < 0 || x >= this.width || y < 0 || y >= this.height) return 0;
    return this.pixels[x + y * this.width]!;
  }

  /** Bresenham, as lwDrawLine. */
  line(x1: number, y1: number, x2: number, y2: number, color: number): void {
    const dx = Math.abs(x2 - x1);
    const dy = Math.abs(y2 - y1);
    const sx = x1 < x2 ? 1 : -1;
    const sy = y1 < y2 ? 1 : -1;
    let err = dx - dy;
    for (;;) {
      this.set(x1, y1, color);
      if (x1 === x2 && y1 === y2) break;
      const e2 = err * 2;
      if (e2 > -dy) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dx) {
        err += dx;
        y1 += sy;
      }
    }
  }

  /** A square centred on x,y, turned by `angle` (lwDrawSquare: float size and k). */
  square(x: number, y: number, side: number, angle: number, color: number): void {
    // Redis's own constant (not Math.SQRT2): the rounding must be its.
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: Redis's literal
    const size = f32(cround(f32(side / 1.4142135623)));
    let k = f32(Math.PI / 4 + angle);
    const px: number[] = [];
    const py: number[] = [];
    for (let j = 0; j < 4; j++) {
      px.push(cround(Math.sin(k) * size + x));
      py.push(cround(Math.cos(k) * size + y));
      k = f32(k + Math.PI / 2);
    }
    for (let j = 0; j < 4; j++) {
      this.line(px[j]!, py[j]!, px[(j + 1) % 4]!, py[(j + 1) % 4]!, color);
    }
  }
}

/** Georg Nees's Schotter: rows of squares, more disordered further down (lwDrawSchotter). */
function schotter(cols: number, perRow: number, perCol: number, rand: Rand): Canvas {
  const width = cols * 2;
  const padding = width > 4 ? 2 : 0;
  const side = f32((width - padding * 2) / perRow);
  const height = Math.trunc(f32(f32(side * perCol) + padding * 2));
  const canvas = new Canvas(width, height, 0);
  const half = f32(side / 2);
  for (let y = 0; y < perCol; y++) {
    for (let x = 0; x < perRow; x++) {
      let sx = Math.trunc(f32(f32(f32(x * side) + half) + padding));
      let sy = Math.trunc(f32(f32(f32(y * side) + half) + padding));
      let angle = 0;
      if (y > 1) {
        let r1 = f32(f32(f32(rand() / RAND_MAX) / perCol) * y);
        let r2 = f32(f32(f32(rand() / RAND_MAX) / perCol) * y);
        let r3 = f32(f32(f32(rand() / RAND_MAX) / perCol) * y);
        if (rand() % 2) r1 = -r1;
        if (rand() % 2) r2 = -r2;
        if (rand() % 2) r3 = -r3;
        angle = r1;
        sx = Math.trunc(f32(sx + f32(f32(r2 * side) / 3)));
        sy = Math.trunc(f32(sy + f32(f32(r3 * side) / 3)));
      }
      canvas.square(sx, sy, side, angle, 1);
    }
  }
  return canvas;
}

/** Each 2x4 block of pixels as one Braille character (lwRenderCanvas). */
function braille(canvas: Canvas): string {
  let text = '';
  for (let y = 0; y < canvas.height; y += 4) {
    for (let x = 0; x < canvas.width; x += 2) {
      let byte = 0;
      if (canvas.get(x, y)) byte |= 1 << 0;
      if (canvas.get(x, y + 1)) byte |= 1 << 1;
      if (canvas.get(x, y + 2)) byte |= 1 << 2;
      if (canvas.get(x + 1, y)) byte |= 1 << 3;
      if (canvas.get(x + 1, y + 1)) byte |= 1 << 4;
      if (canvas.get(x + 1, y + 2)) byte |= 1 << 5;
      if (canvas.get(x, y + 3)) byte |= 1 << 6;
      if (canvas.get(x + 1, y + 3)) byte |= 1 << 7;
      text += String.fromCharCode(0x2800 + byte);
    }
    if (y !== canvas.height - 1) text += '\n';
  }
  return text;
}

/** LOLWUT VERSION 5's picture, its arguments already clamped. */
export function schotterText(cols: number, perRow: number, perCol: number, rand: Rand): string {
  return braille(schotter(cols, perRow, perCol, rand));
}

interface Skyscraper {
  xoff: number;
  width: number;
  height: number;
  windows: boolean;
  color: number;
}

/** C's int division (both operands non-negative here). */
const idiv = (a: number, b: number): number => Math.trunc(a / b);

function skyscraper(canvas: Canvas, si: Skyscraper, rand: Rand): void {
  const starty = canvas.height - 1;
  const endy = starty - si.height + 1;
  for (let y = starty; y >= endy; y--) {
    for (let x = si.xoff; x < si.xoff + si.width; x++) {
      // The roof is four pixels narrower.
      if (y === endy && (x <= si.xoff + 1 || x >= si.xoff + si.width - 2)) continue;
      let color = si.color;
      if (
        si.windows &&
        x > si.xoff + 1 &&
        x < si.xoff + si.width - 2 &&
        y > endy + 1 &&
        y < starty - 1
      ) {
        const relx = x - (si.xoff + 1);
        const rely = y - (endy + 1);
        // Windows two pixels wide, one tall: terminal cells are not square.
        if (idiv(relx, 2) % 2 && rely % 2) {
          do color = 1 + (rand() % 2);
          while (color === si.color);
          if (relx % 2) color = canvas.get(x - 1, y);
        }
      }
      canvas.set(x, y, color);
    }
  }
}

/** A city skyline after 8 bit games' parallax backgrounds (generateSkyline). */
function skyline(canvas: Canvas, rand: Rand): void {
  const si: Skyscraper = { xoff: 0, width: 0, height: 0, windows: false, color: 0 };
  const h = canvas.height;
  // Two grays first, the lighter behind.
  for (let color = 2; color >= 1; color--) {
    si.color = color;
    for (let offset = -10; offset < canvas.width; ) {
      offset += rand() % 8;
      si.xoff = offset;
      si.width = 10 + (rand() % 9);
      si.height = idiv(h, 2) + (color === 2 ? idiv(rand() % h, 2) : idiv(rand() % h, 3));
      si.windows = false;
      skyscraper(canvas, si, rand);
      offset += color === 2 ? idiv(si.width, 2) : si.width + 1;
    }
  }
  si.color = 0;
  for (let offset = -10; offset < canvas.width; ) {
    offset += rand() % 8;
    si.xoff = offset;
    si.width = 5 + (rand() % 14);
    if (si.width % 4) si.width += si.width % 3;
    si.height = idiv(h, 3) + idiv(rand() % h, 2);
    si.windows = true;
    skyscraper(canvas, si, rand);
    offset += si.width + 5;
  }
}

/** Black, two grays and white, foreground and background both (lolwut6.c renderCanvas). */
const GRAYS = ['0;30;40m', '0;90;100m', '0;37;47m', '0;97;107m'];

/** LOLWUT VERSION 6's picture, its arguments already clamped. */
export function skylineText(cols: number, rows: number, rand: Rand): string {
  const canvas = new Canvas(cols, rows, 3);
  skyline(canvas, rand);
  let text = '';
  for (let y = 0; y < canvas.height; y++) {
    for (let x = 0; x < canvas.width; x++) {
      text += `\x1b[${GRAYS[canvas.get(x, y)] ?? GRAYS[0]} \x1b[0m`;
    }
    if (y !== canvas.height - 1) text += '\n';
  }
  return text;
}
