import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { PRODUCT_NAME, contentPath } from '@pass/events/kernel';
import { DONATION_URL } from './links';
import { HeartIcon, HelpIcon, MenuIcon } from '../../components/Icons';

export interface NavLinksProps {
  membersText: string;
  getPassHref: string;
  certificateHref: string;
  onNavigate?: () => void;
}

/** The links shared by the navigation bar and the side menu (docs/product.md §2 common navigation). */
export function NavLinks({ membersText, getPassHref, certificateHref, onNavigate }: NavLinksProps) {
  return (
    <>
      <Link to="/#sponsors" onClick={onNavigate}>
        Members <span className="members-count">&lt;{membersText}&gt;</span>
      </Link>
      <Link to={getPassHref} onClick={onNavigate}>Get my pass</Link>
      <Link to={contentPath('participants')} onClick={onNavigate}>Participants</Link>
      <Link to={certificateHref} onClick={onNavigate}>Certificate</Link>
      <Link to={contentPath('about')} onClick={onNavigate} aria-label="About and help" className="icon-link">
        <HelpIcon /> <span className="nav-label">About and help</span>
      </Link>
      <a href={DONATION_URL} target="_blank" rel="noopener noreferrer" onClick={onNavigate} aria-label="Donate" className="icon-link">
        <HeartIcon /> <span className="nav-label">Donate</span>
      </a>
    </>
  );
}

export interface NavBarProps extends NavLinksProps {
  menuOpen: boolean;
  onMenu: () => void;
  /** The floating bar: beside the brand on a wide screen, a row of its own under it on a narrow one. */
  live?: ReactNode;
}

export function NavBar({ menuOpen, onMenu, live, ...links }: NavBarProps) {
  return (
    <header className="navbar">
      <Link to="/" className="brand" aria-label={`${PRODUCT_NAME} home`}>
        <img src="/logo.svg" alt="" width={32} height={32} />
        <span>{PRODUCT_NAME}</span>
      </Link>
      {live}
      <nav className="navbar-links" aria-label="Main">
        <NavLinks {...links} />
      </nav>
      <button type="button" className="icon-button menu-button" aria-label="Open menu" aria-expanded={menuOpen}
        aria-controls="side-menu" onClick={onMenu}>
        <MenuIcon />
      </button>
    </header>
  );
}
