// The printable pass (docs/product.md §2 /content/certificate and /content/admin-certificate).
export const loadCertificatePage = () => import('./CertificatePage');
export const loadAdminCertificatePage = () => import('./AdminCertificatePage');
