// Back-office enhancements only; every page and form works without this file.
(function () {
  'use strict';
  // Local time after every UTC time, so an operator reads both.
  document.querySelectorAll('time[datetime]').forEach(function (t) {
    var at = new Date(t.getAttribute('datetime'));
    if (isNaN(at.getTime())) return;
    var s = document.createElement('span');
    var inList = !!t.closest('td');
    s.className = inList ? 'muted local-time' : 'muted';
    s.textContent = (inList ? '' : ' · ') + at.toLocaleString() + ' local';
    t.after(s);
  });

  // Irreversible actions ask once more.
  document.querySelectorAll('form button.danger').forEach(function (b) {
    b.addEventListener('click', function (e) {
      if (!window.confirm(b.textContent.trim() + '?')) e.preventDefault();
    });
  });

  // A copy button after each id, key or secret (data-copy names what it is).
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'visually-hidden';
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    area.remove();
    return ok ? Promise.resolve() : Promise.reject(new Error('copy refused'));
  }
  document.querySelectorAll('[data-copy]').forEach(function (el) {
    var b = document.createElement('button');
    b.type = 'button';
    b.className = 'copy';
    b.textContent = 'Copy';
    b.setAttribute('aria-label', 'Copy the ' + el.getAttribute('data-copy') + ' ' + el.textContent.trim());
    b.addEventListener('click', function (e) {
      // A copy button inside a link copies; it does not follow the link.
      e.preventDefault();
      e.stopPropagation();
      copyText(el.textContent.trim()).then(function () {
        b.textContent = 'Copied';
        setTimeout(function () { b.textContent = 'Copy'; }, 2000);
      }, function () {
        b.textContent = 'Select and copy';
      });
    });
    var link = el.closest('a');
    (link || el).after(b);
  });

  // A list whose columns do not fit its box becomes one card per row, whatever its width estimate.
  function fit(box) {
    var table = box.querySelector(':scope > table');
    if (!table) return;
    box.classList.remove('as-cards');
    if (table.scrollWidth > box.clientWidth + 1) box.classList.add('as-cards');
  }
  var boxes = document.querySelectorAll('.rtable');
  boxes.forEach(fit);
  if (window.ResizeObserver) {
    var widths = new WeakMap();
    var watch = new ResizeObserver(function (entries) {
      entries.forEach(function (entry) {
        var w = Math.round(entry.contentRect.width);
        if (widths.get(entry.target) === w) return;
        widths.set(entry.target, w);
        fit(entry.target);
      });
    });
    boxes.forEach(function (box) { watch.observe(box); });
  } else {
    window.addEventListener('resize', function () { boxes.forEach(fit); });
  }

  // The new-desk form shows the rails of the chosen method only.
  var method = document.querySelector('#new-desk select[name=method]');
  if (method) {
    var sets = document.querySelectorAll('#new-desk fieldset[data-method]');
    var showRails = function () {
      sets.forEach(function (set) {
        var mine = set.getAttribute('data-method') === method.value;
        set.hidden = !mine;
        if (!mine) set.querySelectorAll('input').forEach(function (box) { box.checked = false; });
      });
    };
    method.addEventListener('change', showRails);
    showRails();
  }

  // The new-provider form shows the fields of the chosen kind only.
  var kinds = document.querySelectorAll('#new-provider input[name=kind]');
  if (kinds.length) {
    var showKind = function () {
      var chosen = document.querySelector('#new-provider input[name=kind]:checked');
      document.querySelectorAll('#new-provider fieldset[data-kind]').forEach(function (set) {
        set.hidden = !!chosen && set.getAttribute('data-kind') !== chosen.value;
      });
    };
    kinds.forEach(function (k) { k.addEventListener('change', showKind); });
    showKind();
  }

  // A message template's preview follows the typing: the form is posted as its Preview button
  // posts it (the page works the same without this), and the answer's preview replaces the shown one.
  var template = document.getElementById('template-form');
  var slot = document.getElementById('preview-slot');
  if (template && slot && window.fetch && window.DOMParser) {
    var timer = null;
    var refresh = function () {
      var data = new URLSearchParams(new FormData(template));
      if (!data.get('sampleText')) return;
      data.set('intent', 'preview');
      fetch(template.action, { method: 'POST', body: data, credentials: 'same-origin' })
        .then(function (r) { return r.text(); })
        .then(function (text) {
          var doc = new DOMParser().parseFromString(text, 'text/html');
          var fresh = doc.getElementById('preview-slot');
          var problem = doc.getElementById('form-error');
          if (fresh && fresh.innerHTML.trim()) slot.innerHTML = fresh.innerHTML;
          else if (problem) slot.textContent = problem.textContent;
        })
        .catch(function () { /* the Preview button still works */ });
    };
    template.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 400);
    });
  }
})();
