// Runs inside each network ad frame (src/components/AdBanner.tsx), before the network's
// invoke.js: records on the frame's <html> whether that script loaded or failed (a blocker
// refuses it), which the ad checks read (docs/product.md §4). Load and error events of a <script> do not
// bubble, so they are caught on their way down (capture) at the document.
(function () {
  var root = document.documentElement;
  function watch(state) {
    return function (event) {
      var target = event.target;
      if (target && target.tagName === 'SCRIPT' && /\/invoke\.js(\?|$)/.test(target.src)) root.setAttribute('data-ad-script', state);
    };
  }
  document.addEventListener('load', watch('loaded'), true);
  document.addEventListener('error', watch('failed'), true);
})();
