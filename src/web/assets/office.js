// Back-office enhancements only; every page and form works without this file.
(function () {
  'use strict';
  // Local time after every UTC time, so an operator reads both.
  document.querySelectorAll('time[datetime]').forEach(function (t) {
    var at = new Date(t.getAttribute('datetime'));
    if (isNaN(at.getTime())) return;
    var s = document.createElement('span');
    s.className = 'muted';
    s.textContent = ' · ' + at.toLocaleString() + ' local';
    t.after(s);
  });
  // Irreversible actions ask once more.
  document.querySelectorAll('form button.danger').forEach(function (b) {
    b.addEventListener('click', function (e) {
      if (!window.confirm(b.textContent.trim() + '?')) e.preventDefault();
    });
  });
})();
