import { useEffect, useState } from 'react';
import { PRODUCT_NAME, SPECIAL_USER_PASSES } from '@pass/events/kernel';
import { DONATION_URL } from './links';
import { useTitle } from '../../lib/hooks';
import { socialLinksOfPage, type ShownSocialLink } from '../../lib/page-settings';

export default function AboutPage() {
  useTitle(`About · ${PRODUCT_NAME}`);
  // The build-time HTML has no links (they are the deployment's, in the served page): hydration
  // starts from none, then the page's are read.
  const [socialLinks, setSocialLinks] = useState<ShownSocialLink[]>([]);
  useEffect(() => setSocialLinks(socialLinksOfPage()), []);
  return (
    <section className="panel about" aria-labelledby="about-title">
      <h1 id="about-title">About {PRODUCT_NAME}</h1>
      <p>
        Hi! I'm a student, and {PRODUCT_NAME} is my fun project: a joke pass that anyone can claim, to see whether we
        can reach 1 million passes in 365 days together. The site raises funds through ads, so every visit helps me
        keep studying and building.
      </p>
      <p>
        Join, collect points by waiting on the free-points page or buy them, exchange them for passes or for messages
        in the global chat, and print your certificate. Your messages are highlighted after the first{' '}
        {SPECIAL_USER_PASSES} passes.
      </p>
      {socialLinks.length > 0 && (
        <>
          <h2>Follow the project</h2>
          <ul className="social">
            {socialLinks.map((l) => (
              <li key={l.network}>
                <a href={l.url} target="_blank" rel="noopener noreferrer">{l.name}</a>
              </li>
            ))}
          </ul>
        </>
      )}
      <p>
        <a className="button primary" href={DONATION_URL} target="_blank" rel="noopener noreferrer">Donate</a>
      </p>
    </section>
  );
}
