import { ToastBar, useToaster, type DefaultToastOptions } from 'react-hot-toast';

export interface DockToastsProps {
  options: DefaultToastOptions;
}

/**
 * The toasts, in the page's flow inside the sticky top dock rather than fixed over the page: a toast
 * pushes the page down while it shows and covers no control. react-hot-toast keeps the timers and
 * the limit; a dismissed toast leaves at once, so its room is given back.
 */
export function DockToasts({ options }: DockToastsProps) {
  const { toasts, handlers } = useToaster(options);
  const shown = toasts.filter((t) => t.visible);
  return (
    <div className="toasts" onMouseEnter={handlers.startPause} onMouseLeave={handlers.endPause}>
      {shown.map((t) => (
        <ToastBar key={t.id} toast={t} position="top-center" />
      ))}
    </div>
  );
}
