/**
 * Which images get previews, decided by their first bytes (a photo may have any name, or none; a
 * `.jpg` may hold anything): JPEG, PNG, GIF and WebP, the formats sharp's prebuilt libvips reads.
 */
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp';

/** How many first bytes `sniffImage` needs. */
export const SNIFF_BYTES = 12;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function sniffImage(head: Buffer): ImageFormat | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  const ascii = (from: number, to: number) => head.toString('latin1', from, to);
  if (head.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return null;
}
