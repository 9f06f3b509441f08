// Count Centre explorer: optional enhancements only. Every page works without this file; it adds copy buttons to
// code, submits choice menus marked data-autosubmit as soon as they change, and announces the table's state after a
// sort or page change. State stays in the URL.
(function () {
  'use strict';

  function announce(text) {
    var region = document.getElementById('cc-live');
    if (!region) {
      region = document.createElement('p');
      region.id = 'cc-live';
      region.className = 'visually-hidden';
      region.setAttribute('aria-live', 'polite');
      document.body.appendChild(region);
    }
    region.textContent = '';
    window.setTimeout(function () {
      region.textContent = text;
    }, 50);
  }

  function addCopyButtons() {
    if (!navigator.clipboard) return;
    var blocks = document.querySelectorAll('pre.code');
    Array.prototype.forEach.call(blocks, function (pre) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy secondary';
      var label = pre.closest('details') ? pre.closest('details').querySelector('summary').textContent : 'API URL';
      button.textContent = 'Copy';
      button.setAttribute('aria-label', 'Copy the ' + label + ' code');
      button.addEventListener('click', function () {
        navigator.clipboard.writeText(pre.textContent).then(
          function () {
            button.textContent = 'Copied';
            announce('Copied to the clipboard');
            window.setTimeout(function () {
              button.textContent = 'Copy';
            }, 2000);
          },
          function () {
            announce('Could not copy; select the text instead');
          },
        );
      });
      pre.parentNode.insertBefore(button, pre.nextSibling);
    });
  }

  function autoSubmit() {
    var selects = document.querySelectorAll('select[data-autosubmit]');
    Array.prototype.forEach.call(selects, function (select) {
      select.addEventListener('change', function () {
        if (select.form) select.form.submit();
      });
      var button = select.form && select.form.querySelector('button[type="submit"]');
      if (button) button.classList.add('secondary');
    });
  }

  // After a sort or a page change the browser lands on #results (or, sorted, on the sorted column's heading, which it
  // scrolls into view): say what the table now shows.
  function announceResults() {
    if (window.location.hash !== '#results' && window.location.hash !== '#sorted') return;
    var range = document.getElementById('range');
    var results = document.getElementById('results');
    if (results) results.focus({ preventScroll: window.location.hash === '#sorted' });
    if (range) announce(range.textContent);
  }

  function start() {
    addCopyButtons();
    autoSubmit();
    announceResults();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
