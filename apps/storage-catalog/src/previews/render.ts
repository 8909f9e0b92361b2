/**
 * Renders an image's previews with sharp (libvips): one decode, EXIF orientation applied, scaled
 * to the largest preview width the image has, then each width from that. A width is exactly the
 * number (the interface's `preview_<n>` promise); a width wider than the image is not made
 * (no upscaling: the member is absent, as the interface allows). Heights follow the aspect ratio,
 * cut from the top at MAX_ASPECT times the width. Opaque images give JPEG previews, images with
 * an alpha channel PNG ones; no metadata (EXIF, GPS) is copied into them.
 *
 * The input is read into memory first, as sharp would do with a stream anyway (libvips needs
 * random access to most formats), so callers bound the size of what they render; the decoded
 * pixels never are whole in memory for a JPEG (libvips shrinks while it decodes).
 */
import { PREVIEW_WIDTHS, type PreviewWidth } from '@burrow/contracts';
import type { Readable } from 'node:stream';
// libvips is loaded with the first image to render, not by every start of the storage catalog
import type Sharp from 'sharp';

export type PreviewFormat = 'jpeg' | 'png';

export interface RenderedPreview {
  width: PreviewWidth;
  height: number;
  format: PreviewFormat;
  data: Buffer;
}

/** The image cannot be decoded (corrupt, truncated, or beyond the decoder's limits). */
export class UnreadableImage extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnreadableImage';
  }
}

/** A 1:50 strip would otherwise make an 800 px wide preview 40,000 px tall. */
export const MAX_ASPECT = 4;
const JPEG_QUALITY = 80;
/** decoded pixels at most (sharp's default, ~16k x 16k): a bigger header is refused before decoding */
const MAX_PIXELS = 268_402_689;
/** an image that takes longer than this to decode is taken to be unreadable (it would hold a slot) */
const TIMEOUT_SECONDS = 60;

let sharp: typeof Sharp;
/**
 * Once per process: no libvips operation cache (every image is seen once), one libvips thread per
 * image (the previewer's own concurrency is what bounds the CPU it takes).
 */
async function loadSharp(): Promise<typeof Sharp> {
  if (sharp) return sharp;
  const loaded = (await import('sharp')).default;
  loaded.cache(false);
  loaded.concurrency(1);
  sharp = loaded;
  return sharp;
}

const previewHeight = (width: number, image: { width: number; height: number }) =>
  Math.min(Math.max(1, Math.round((width * image.height) / image.width)), width * MAX_ASPECT);

const firstLine = (message: string) => message.split('\n')[0].slice(0, 200);

/** Reads a stream whole; its own error (a storage failure) is thrown as is. */
export async function readAll(input: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Whether every pixel of raw RGBA data is opaque (such an image gets JPEG previews). */
function opaque(data: Buffer, channels: number): boolean {
  if (channels !== 4) return true;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return false;
  return true;
}

/**
 * The previews of the image `input` streams, smallest first; none when it is narrower than the
 * smallest width. Throws UnreadableImage when it cannot be decoded, and the input's own error
 * (a storage failure, worth another try) when the input fails.
 */
export async function renderPreviews(input: Readable): Promise<RenderedPreview[]> {
  const sharp = await loadSharp();
  const bytes = await readAll(input);
  try {
    const decoder = sharp(bytes, { failOn: 'error', limitInputPixels: MAX_PIXELS });
    const meta = await decoder.metadata();
    // orientations 5-8 swap width and height
    const image = meta.autoOrient ?? { width: meta.width, height: meta.height };
    if (!image.width || !image.height) throw new UnreadableImage('the image has no dimensions');
    const size = { width: image.width, height: image.height };
    const widths = PREVIEW_WIDTHS.filter((w) => w <= size.width);
    if (!widths.length) return [];
    const top = widths[widths.length - 1];
    const base = await decoder
      .rotate()
      .resize({ width: top, height: previewHeight(top, size), fit: 'cover', position: 'top' })
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .timeout({ seconds: TIMEOUT_SECONDS })
      .toBuffer({ resolveWithObject: true });
    const raw = { width: base.info.width, height: base.info.height, channels: base.info.channels };
    // (a GIF's palette, or a PNG's alpha channel, often hides an opaque picture)
    const format: PreviewFormat = opaque(base.data, raw.channels) ? 'jpeg' : 'png';
    const previews: RenderedPreview[] = [];
    for (const width of widths) {
      const scaled = sharp(base.data, { raw }).resize({
        width,
        height: previewHeight(width, size),
        fit: 'cover',
        position: 'top',
      });
      const encoded = format === 'png' ? scaled.png() : scaled.removeAlpha().jpeg({ quality: JPEG_QUALITY });
      const { data, info } = await encoded.timeout({ seconds: TIMEOUT_SECONDS }).toBuffer({ resolveWithObject: true });
      previews.push({ width, height: info.height, format, data });
    }
    return previews;
  } catch (error) {
    if (error instanceof UnreadableImage) throw error;
    throw new UnreadableImage(firstLine((error as Error).message));
  }
}
