// Payment page enhancements: copy buttons, the countdown in the customer's local time, and live
// status. The page is complete without this file; it only makes it follow the order by itself.
(function () {
  'use strict';
  var body = document.body;
  var id = body.dataset.order;
  var status = body.dataset.status;
  var lang = document.documentElement.lang || 'en';
  if (!id) return;

  // Copy buttons: shown only when a script can copy.
  var buttons = document.querySelectorAll('button.copy');
  for (var i = 0; i < buttons.length; i++) {
    var b = buttons[i];
    b.hidden = false;
    b.addEventListener('click', onCopy);
  }
  function onCopy(ev) {
    var b = ev.currentTarget;
    var text = b.getAttribute('data-copy') || '';
    var done = function () {
      var label = b.textContent;
      // While it says "Copied" the button's name is what it shows (its "Copy: field" label would not match).
      var named = b.getAttribute('aria-label');
      b.textContent = body.dataset.copied || 'Copied';
      b.removeAttribute('aria-label');
      announce(b.textContent);
      b.classList.add('done');
      setTimeout(function () {
        b.textContent = label;
        if (named) b.setAttribute('aria-label', named);
        b.classList.remove('done');
      }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text) && done(); });
    } else if (fallbackCopy(text)) done();
  }
  // The button's new label is not read out by screen readers; a polite live region is.
  var status = null;
  function announce(text) {
    if (!status) {
      status = document.createElement('p');
      status.className = 'offscreen';
      status.setAttribute('role', 'status');
      document.body.appendChild(status);
    }
    status.textContent = '';
    setTimeout(function () { status.textContent = text; }, 50);
  }
  function fallbackCopy(text) {
    var t = document.createElement('textarea');
    t.value = text;
    t.setAttribute('readonly', '');
    t.className = 'offscreen';
    document.body.appendChild(t);
    t.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    document.body.removeChild(t);
    return ok;
  }

  // A completed order leads on to the shop's success page, a cancelled one to its fail page.
  // A customer who starts on the page's form (the reference of a late payment on a cancelled
  // order) stays: the move is called off as soon as they focus it.
  var redirect = body.dataset.redirect;
  if (redirect && /^https?:\/\//i.test(redirect)) {
    var note = document.getElementById('redirecting');
    if (note) note.hidden = false;
    var leave = setTimeout(function () { window.location.assign(redirect); }, (Number(body.dataset.redirectAfter) || 5) * 1000);
    var form = document.querySelector('form');
    if (form) form.addEventListener('focusin', function () {
      clearTimeout(leave);
      if (note) note.hidden = true;
    });
  }

  // Deadline in the customer's own time zone, with the server's UTC beside it.
  var deadline = document.getElementById('deadline');
  var expires = Date.parse(body.dataset.expires || '');
  if (deadline && !isNaN(expires)) {
    try {
      var local = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(expires));
      var utc = deadline.textContent;
      // Some languages already bracket the zone name ("12:30 (UTC)"), so a dot separates the two.
      if (local !== utc) deadline.textContent = local + ' · ' + utc;
    } catch (e) { /* keep the server's UTC time */ }
  }

  // Countdown: the server rendered the time left; this keeps it ticking.
  var countdown = document.getElementById('countdown');
  // Time left as the server counted it at render, run down on the monotonic clock: a customer's
  // wrong system clock does not shorten or stretch the countdown.
  var startLeft = Number(body.dataset.remaining);
  var started = performance.now();
  function remaining() { return startLeft - (performance.now() - started); }
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function tick() {
    if (!countdown) return;
    var s = Math.max(0, Math.floor(remaining() / 1000));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    countdown.textContent = s === 0 ? (body.dataset.timeUp || '0:00') : (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(sec);
    countdown.classList.toggle('low', s < 120);
    if (s === 0) poll();
  }
  if (countdown && !isNaN(startLeft)) { tick(); setInterval(tick, 1000); }

  // Live status: /api/pay/{id} allows 100 requests per 10 s per address; one every 4 s (15 s in a
  // background tab) stays far below it even with a few tabs open. Any change reloads the page,
  // which the server renders in the new state (success, expired, cancelled) in the right language.
  var view = body.dataset.view;
  if (view !== 'open' && view !== 'payed') return;
  var timer = null;
  var busy = false;
  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }
  function poll() {
    if (busy) return;
    busy = true;
    fetch('/api/pay/' + encodeURIComponent(id), { cache: 'no-store', headers: { Accept: 'application/json' } })
      .then(function (res) {
        if (res.status === 429) {
          var after = Number(res.headers.get('Retry-After')) || 10;
          return { wait: after * 1000 };
        }
        return res.json().then(function (j) { return { result: j && j.result }; });
      })
      .then(function (r) {
        busy = false;
        if (r.result && r.result.status && r.result.status !== status) {
          window.location.replace(window.location.href);
          return;
        }
        schedule(r.wait || (document.hidden ? 15000 : 4000));
      }, function () {
        busy = false;
        schedule(10000);
      });
  }
  schedule(4000);
  document.addEventListener('visibilitychange', function () { if (!document.hidden) schedule(500); });
})();
