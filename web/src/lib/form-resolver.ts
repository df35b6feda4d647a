import { zodResolver } from '@hookform/resolvers/zod';
import { disableZodJit } from '@pass/events/kernel';

/**
 * react-hook-form's zod resolver, with zod's JIT turned off first: its eval probe would be
 * reported as a Content-Security-Policy violation (see `disableZodJit`). Set here, where the
 * (lazily loaded) forms first need zod, so the first page's script does not carry zod.
 */
export const formResolver = ((...args: Parameters<typeof zodResolver>) => {
  disableZodJit();
  return zodResolver(...args);
}) as typeof zodResolver;
