import sharp from 'sharp';

/** A real photo-like JPEG carrying EXIF (camera and GPS-style tags), as a phone would upload. */
export async function jpegWithExif(width = 1600, height = 1200): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .withExif({ IFD0: { Make: 'PhoneCo', Model: 'Phone 1', Copyright: 'Ana' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '40/1 25/1 0/1' } })
    .jpeg()
    .toBuffer();
}

export async function smallPng(): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 4, background: '#00ff00' } }).png().toBuffer();
}

export const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
export const WINDOWS_EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90)]);
