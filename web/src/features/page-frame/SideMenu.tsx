import { NavLinks, type NavLinksProps } from './NavBar';
import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { contentPath } from '@pass/events/kernel';
import { CloseIcon } from '../../components/Icons';

export interface SideMenuProps extends Omit<NavLinksProps, 'onNavigate'> {
  open: boolean;
  onClose: () => void;
  /** A member's "Your data" entry (/content/my-data); guests have none. */
  yourDataShown?: boolean;
}

/** Opens with the menu button; closes with its X and on every link click (docs/product.md §2). */
export function SideMenu({ open, onClose, yourDataShown = false, ...links }: SideMenuProps) {
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open, onClose]);
  return (
    <>
      {open && <div className="backdrop" onClick={onClose} aria-hidden="true" />}
      <aside id="side-menu" className={`side-menu${open ? ' open' : ''}`} aria-label="Menu" aria-hidden={!open}
        inert={!open}>
        <button type="button" className="icon-button side-menu-close" aria-label="Close menu" onClick={onClose}>
          <CloseIcon />
        </button>
        <nav aria-label="Side menu">
          <NavLinks {...links} onNavigate={onClose} />
          {yourDataShown && <Link to={contentPath('my-data')} onClick={onClose}>Your data</Link>}
        </nav>
      </aside>
    </>
  );
}
