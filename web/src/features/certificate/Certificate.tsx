import { ANONYMOUS_NICKNAME, PRODUCT_NAME } from '@pass/events/kernel';
import { formatDate, formatNumber } from '../../lib/format';

export interface CertificateProps {
  fullname: string;
  createdAt: string;
  passes: number;
}

/** The printable pass (docs/product.md §2 /content/certificate). */
export function Certificate({ fullname, createdAt, passes }: CertificateProps) {
  return (
    <article className="certificate" aria-label={`${PRODUCT_NAME} certificate`}>
      <div className="certificate-border">
        <p className="certificate-kicker">Certificate of</p>
        <h1>{PRODUCT_NAME}</h1>
        <p>This certifies that</p>
        <p className="certificate-name">{fullname || ANONYMOUS_NICKNAME}</p>
        <p>
          holds <strong>{formatNumber(passes)}</strong> {passes === 1 ? 'pass' : 'passes'} since{' '}
          <strong>{formatDate(createdAt)}</strong>
        </p>
        <p className="certificate-text">
          Everyone has the right to freedom of opinion and expression; this right includes freedom to hold opinions
          without interference and to seek, receive and impart information and ideas through any media and regardless
          of frontiers.
        </p>
        <p className="certificate-seal" aria-hidden="true">★</p>
      </div>
    </article>
  );
}
