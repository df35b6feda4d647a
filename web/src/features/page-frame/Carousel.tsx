import { useState } from 'react';

export interface CarouselProps {
  images: { src: string; alt: string }[];
}

/** Five certificate samples; arrows and dots, no autoplay (less motion, fewer timers). */
export function Carousel({ images }: CarouselProps) {
  const [index, setIndex] = useState(0);
  const count = images.length;
  const go = (i: number) => setIndex(((i % count) + count) % count);
  const current = images[index];
  if (!current) return null;
  return (
    <section className="carousel" aria-roledescription="carousel" aria-label="Certificate samples">
      <div className="carousel-frame">
        <button type="button" className="icon-button carousel-prev" aria-label="Previous certificate" onClick={() => go(index - 1)}>
          ‹
        </button>
        {/* The first image is the largest paint of / (index.html preloads it). */}
        <img src={current.src} alt={current.alt} width={480} height={340} fetchPriority={index === 0 ? 'high' : 'auto'} />
        <button type="button" className="icon-button carousel-next" aria-label="Next certificate" onClick={() => go(index + 1)}>
          ›
        </button>
      </div>
      <div className="carousel-dots">
        {images.map((img, i) => (
          <button key={img.src} type="button" aria-label={`Show certificate ${i + 1}`} aria-current={i === index}
            className={i === index ? 'active' : ''} onClick={() => go(i)} />
        ))}
      </div>
    </section>
  );
}
