export function LoadingOverlay() {
  return (
    <div className="loading-overlay" role="progressbar" aria-label="Loading" aria-busy="true">
      <div className="spinner" />
    </div>
  );
}
