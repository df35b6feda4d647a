import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { contentPath, type AdminPostEntry } from '@pass/events/kernel';
import { Modal } from '../../components/Modal';
import { formatNumber } from '../../lib/format';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { adminActions } from './slice';

// The dashboard's posts (docs/product.md §2 admin): the searched list, each post's actions, and the
// confirmation of a member's erasure.

interface AdminPostItemProps {
  post: AdminPostEntry;
  /** The member was erased: the card keeps only the id. */
  erased: boolean;
  onCertificate: () => void;
  onHistory: () => void;
  onDelete: () => void;
  onErase: () => void;
}

/** One post: the member's card and what the admin may do with it. */
/** A member as the dashboard names them: their card's name, else their e-mail. */
const memberName = (post: AdminPostEntry) => post.fullname || post.email;

function AdminPostItem({ post, erased, onCertificate, onHistory, onDelete, onErase }: AdminPostItemProps) {
  const name = memberName(post);
  return (
    <li className="card">
      {post.imageUrl && !erased && <img src={post.imageUrl} alt={post.fullname} width={48} height={48} />}
      <div>
        {erased ? (
          <strong>Miembro {post.userId} <span className="pill">Borrado</span></strong>
        ) : (
          <>
            <strong>{name}</strong>{' '}
            <span className="muted">
              {post.country} · {post.email} · {formatNumber(post.passes)} pases · {formatNumber(post.points)} puntos
            </span>
            {post.message && <p>{post.message}</p>}
          </>
        )}
      </div>
      {!erased && (
        <div className="row-actions">
          <button type="button" className="button" aria-label={`Certificado de ${name}`} onClick={onCertificate}>
            Certificado
          </button>
          <button type="button" className="button" aria-label={`Historial de ${name}`} onClick={onHistory}>
            Historial
          </button>
          <button type="button" className="button danger" aria-label={`Eliminar la publicación de ${name}`}
            onClick={() => window.confirm(`¿Eliminar la publicación de ${name}?`) && onDelete()}>
            Eliminar
          </button>
          <button type="button" className="button danger" aria-label={`Borrar miembro ${name}`} onClick={onErase}>
            Borrar miembro
          </button>
        </div>
      )}
    </li>
  );
}

/** The posts heading, the search box and the list; erasing a member asks the page to confirm. */
export function AdminPosts({ onErase }: { onErase: (post: AdminPostEntry) => void }) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const posts = useAppSelector((state) => state.admin.posts);
  const erased = useAppSelector((state) => state.admin.erased);

  useEffect(() => {
    dispatch(adminActions.postsRequested(posts.query));
    // Load when the dashboard opens; typing re-queries through the saga.
  }, [dispatch]);

  return (
    <>
      <h2>Publicaciones <span className="pill">{formatNumber(posts.total)}</span></h2>
      <input type="search" className="search" placeholder="Buscar por nombre, país o email" aria-label="Buscar publicaciones"
        value={posts.query} onChange={(e) => dispatch(adminActions.postsRequested(e.target.value))} />
      {posts.loaded && posts.items.length === 0 ? (
        <p className="muted">No hay publicaciones.</p>
      ) : (
        <ul className="admin-posts">
          {posts.items.map((p) => (
            <AdminPostItem key={p.userId} post={p} erased={erased.includes(p.userId)}
              onCertificate={() => navigate(contentPath('admin-certificate'), { state: { selectedUser: p } })}
              onHistory={() => dispatch(adminActions.historyRequested(p.userId))}
              onDelete={() => dispatch(adminActions.deletePostRequested(p.userId))}
              onErase={() => onErase(p)} />
          ))}
        </ul>
      )}
    </>
  );
}

/** The confirmation of a member's erasure: names the member as the list does, and what goes. */
export function EraseDialog({ member, onCancel, onConfirm }: { member: AdminPostEntry; onCancel: () => void; onConfirm: () => void }) {
  const name = memberName(member);
  return (
    <Modal className="checkout" labelledBy="erase-title" onEscape={onCancel}>
      <div className="checkout-inner" lang="es">
        <h2 id="erase-title">¿Borrar al miembro {name}?</h2>
        <p>
          Se borran para siempre los datos personales de <strong>{name}</strong> (miembro {member.userId}):
          su email, su tarjeta publicada con su imagen y la autoría de sus mensajes del chat. Los totales del sitio no cambian.
        </p>
        <div className="row-actions">
          <button type="button" className="button danger" onClick={onConfirm}>Borrar miembro</button>
          <button type="button" className="button" onClick={onCancel}>Cancelar</button>
        </div>
      </div>
    </Modal>
  );
}
